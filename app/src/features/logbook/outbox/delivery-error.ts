import type { RefusedSign } from './sign-news';

/**
 * A kept sign the server refused on delivery, as the page logs it (`Error inserting log:`) and says why: shaped
 * like the client's own errors (name, code, status, outcome, idempotencyKey), whichever tab or worker sent it.
 */
export class OutboxDeliveryError extends Error {
  override readonly name = 'LogbookError';
  readonly code: string;
  readonly status: number;
  readonly outcome = 'unknown';
  readonly idempotencyKey: string;

  constructor(sign: RefusedSign) {
    super(sign.refusal.message);
    this.code = sign.refusal.code;
    this.status = sign.refusal.status;
    this.idempotencyKey = sign.key;
  }
}
