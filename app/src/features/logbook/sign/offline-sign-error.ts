/**
 * What the page logs (`Error inserting log:`) for a sign made while the browser says it is offline: it is kept on
 * the device at once and no insert is sent, but the insert did not reach the server, as a sign that failed and was
 * kept after its resends did not. Shaped like the client's network error, with the key it will be sent under.
 */
export class OfflineSignError extends Error {
  override readonly name = 'LogbookError';
  readonly code = 'network_error';
  readonly status = 0;
  /** Nothing was sent: the sign is stored only once the outbox delivers it. */
  readonly outcome = 'not_stored';
  readonly idempotencyKey: string;

  constructor(idempotencyKey: string) {
    super('The device is offline: the insert was not sent, and the sign is kept on this device.');
    this.idempotencyKey = idempotencyKey;
  }
}
