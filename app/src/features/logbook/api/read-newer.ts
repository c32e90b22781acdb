import { startEntryPages } from './entry-pages';
import type { KeptEntry } from '../types';

/**
 * The entries created at or after `since` (every entry without it), newest first, as plain rows: a catch-up read is
 * a few rows merged into what is shown, so its list is copied out of wasm memory and freed at once. Rejects with
 * the client's error.
 */
export async function readNewer(since: string | undefined): Promise<KeptEntry[]> {
  const list = await startEntryPages(Promise.resolve(since)).done;
  try {
    return list.toArray();
  } finally {
    list.free();
  }
}
