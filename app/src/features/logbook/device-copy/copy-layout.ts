import { HEAD_ENTRIES } from './copy-database';
import type { CopyTimes, KeptCopy, KeptEntry, KeptHead } from '../types';
import { withoutRemoved } from './removals';

/** The older entries of a copy, kept beside its head (a KeptHead record; copy-database.ts). */
export interface StoredRest {
  readonly entries: KeptEntry[];
}

/** Entries already newest first, each id once, split into the two records written together. */
export function splitCopy(entries: readonly KeptEntry[], times: CopyTimes): { head: KeptHead; rest: StoredRest } {
  const { updatedAt, reconciledAt } = times;
  return {
    head: { entries: entries.slice(0, HEAD_ENTRIES), count: entries.length, updatedAt, reconciledAt },
    rest: { entries: entries.slice(HEAD_ENTRIES) },
  };
}

/** Whether the head holds the whole copy (no rest to read). */
export function headIsWhole(head: KeptHead): boolean {
  return head.entries.length >= head.count;
}

/**
 * A stored head, or null when the record is not one (missing, or a layout this page does not know). Entries this
 * device learned were removed are left out (device-copy/removals.ts), here and in every read of the copy below; the
 * count stays the record's, so a head that lost some reads its rest.
 */
export function readHead(stored: unknown): KeptHead | null {
  const copy = parseHead(stored);
  return copy && { ...copy, entries: withoutRemoved(copy.entries) };
}

function parseHead(stored: unknown): KeptHead | null {
  const copy = parseWhole(stored);
  const count = (stored as Partial<KeptHead> | null)?.count;
  if (copy === null || !Number.isInteger(count) || (count as number) < copy.entries.length) return null;
  return { ...copy, count: count as number };
}

/** A copy of the older layout (one record), or null when the record is not one. */
export function readWhole(stored: unknown): KeptCopy | null {
  const copy = parseWhole(stored);
  return copy && { ...copy, entries: withoutRemoved(copy.entries) };
}

function parseWhole(stored: unknown): KeptCopy | null {
  if (typeof stored !== 'object' || stored === null) return null;
  const { entries, updatedAt, reconciledAt } = stored as Partial<KeptCopy>;
  if (!Array.isArray(entries) || typeof updatedAt !== 'number' || typeof reconciledAt !== 'number') return null;
  return { entries, updatedAt, reconciledAt };
}

/** The whole copy from its two records, or null when they do not make one (a rest missing or of another size). */
export function joinCopy(head: unknown, rest: unknown): KeptCopy | null {
  const kept = parseHead(head);
  if (kept === null) return null;
  const { updatedAt, reconciledAt } = kept;
  if (headIsWhole(kept)) return { entries: withoutRemoved(kept.entries), updatedAt, reconciledAt };
  const older = (rest as Partial<StoredRest> | null | undefined)?.entries;
  if (!Array.isArray(older) || kept.entries.length + older.length !== kept.count) return null;
  return { entries: withoutRemoved([...kept.entries, ...older]), updatedAt, reconciledAt };
}
