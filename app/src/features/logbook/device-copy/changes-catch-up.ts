import type { KeptEntry, LogChange } from '../types';
import type { Removals } from './removals';

/** Changes asked for a page: hosted Supabase's row cap. */
export const CHANGES_PAGE = 1000;
/** Ids asked for a read of added entries: a URL well under any server's limit. */
const IDS_PER_READ = 100;

/** Where the removals and restores come from (api/read-changes.ts; a test's fake). */
export interface ChangeSource {
  /** The changes after `after`, oldest first, at most `limit`. */
  listChanges(after: number, limit: number): Promise<LogChange[]>;
  /** The newest change's seq, 0 without any. */
  newestChange(): Promise<number>;
  /** The entries with these ids that exist. */
  entriesById(ids: readonly number[]): Promise<KeptEntry[]>;
}

/** What a visit learned from the changes since this device's cursor. */
export interface CaughtUpChanges {
  /** Ids removed and not added back since. */
  readonly removed: number[];
  /** Entries added back (restored, or imported with an older time) and still there, to place by created_at. */
  readonly added: KeptEntry[];
  /** The last change applied. */
  readonly cursor: number;
}

/**
 * Reads every change after the device's cursor, in order, so a removal then a restore of one entry ends restored
 * (and a restore then a removal removed), and reads the entries added back by id: their `created_at` may be older
 * than any catch-up read by time reaches. A device that never read the changes starts from the newest (its next
 * whole read holds the logbook as it is). Rejects with the first failed read's error: nothing is learned then.
 */
export async function catchUpChanges(source: ChangeSource, known: Removals): Promise<CaughtUpChanges> {
  if (known.cursor === null) return { removed: [], added: [], cursor: await source.newestChange() };
  let cursor = known.cursor;
  const removed = new Set<number>();
  const added = new Set<number>();
  for (;;) {
    const page = await source.listChanges(cursor, CHANGES_PAGE);
    const last = page.at(-1);
    if (last === undefined) break;
    for (const { entryId, change } of page) {
      const [into, outOf] = change === 'removed' ? [removed, added] : [added, removed];
      into.add(entryId);
      outOf.delete(entryId);
    }
    cursor = last.seq;
  }
  const ids = [...added];
  const entries: KeptEntry[] = [];
  for (let start = 0; start < ids.length; start += IDS_PER_READ) entries.push(...(await source.entriesById(ids.slice(start, start + IDS_PER_READ))));
  return { removed: [...removed], added: entries, cursor };
}
