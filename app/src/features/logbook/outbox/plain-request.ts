/**
 * A sign's insert as plain data, exactly as the client would send it first (URL, lower-case headers with
 * `apikey`, `authorization` and `idempotency-key`, JSON body): what the outbox keeps, so that the page or a
 * service worker can send it again with `fetch` alone, without the wasm client.
 */
export interface PlainRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
}

/** A sign kept on the device until it reaches the server. */
export interface OutboxItem {
  /** The sign's Idempotency-Key: one item per key, so saving the same sign again replaces it. */
  readonly key: string;
  readonly name: string;
  readonly message: string;
  readonly request: PlainRequest;
  /** When it was first saved (ms since the epoch): items are sent oldest first. */
  readonly savedAt: number;
}
