import { loadClientCode, loadedClientCode } from './client-code';
import type { KeptEntry, NewEntry, PlainRequest, SignOptions } from '../types';

/**
 * Inserts one entry exactly as given (no trimming). With `options.idempotencyKey` (the key of an
 * earlier failed attempt of the same sign) the entry is stored at most once in all. Resolves to
 * the entry as stored, or undefined when the answer did not hold it (a resend of a sign already
 * stored). Rejects with the client's error, whose `idempotencyKey` signs it again without
 * doubling it.
 */
export async function signLogbook(entry: NewEntry, options?: SignOptions): Promise<KeptEntry | undefined> {
  // Awaited inside the async function so a client-creation failure becomes a rejection too.
  const client = (loadedClientCode() ?? (await loadClientCode())).getClient();
  return await (options === undefined ? client.signLogbook(entry) : client.signLogbook(entry, options));
}

/** The insert `signLogbook(entry, options)` would send, as plain data, to keep and send later without wasm. */
export async function signRequest(entry: NewEntry, options?: SignOptions): Promise<PlainRequest> {
  const client = (loadedClientCode() ?? (await loadClientCode())).getClient();
  return await (options === undefined ? client.signRequest(entry) : client.signRequest(entry, options));
}
