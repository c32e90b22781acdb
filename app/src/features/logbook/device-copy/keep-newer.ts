import { mergeNewer } from './catch-up';
import type { DeviceCopy } from './copy-store';
import { instantMicros } from './newest-first';
import type { KeptEntry } from '../types';

/**
 * Adds entries that arrived while the page is open to the copy, keeping its times of reconciliation. Only over a
 * copy that already holds the newest entry the page read (`readNewest`, its `created_at`): the next visit reads
 * from a minute before the copy's newest entry, so adding a newer one to a copy that lacks the read's entries
 * would hide those for good. True when it was kept; false where there is no such copy or the device cannot write.
 */
export async function keepNewer(
  copy: Promise<DeviceCopy | null>,
  newer: readonly KeptEntry[],
  readNewest: string | undefined,
  now: number,
): Promise<boolean> {
  try {
    const opened = await copy;
    const kept = opened === null ? null : await opened.read();
    if (opened === null || kept === null) return false;
    if (readNewest !== undefined) {
      const newest = kept.entries[0];
      if (newest === undefined || !(instantMicros(newest.created_at) >= instantMicros(readNewest))) return false;
    }
    await opened.replace(mergeNewer(kept.entries, newer), { updatedAt: now, reconciledAt: kept.reconciledAt });
    return true;
  } catch {
    return false;
  }
}
