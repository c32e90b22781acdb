import type { KeptEntry } from '../types';

/**
 * What this device has learned of the owner's removals, kept in localStorage under this key: the ids removed
 * (tombstones) and the last change it applied (`seq` of `geocache_log_changes`, api/read-changes.ts). localStorage,
 * not IndexedDB: the served page's inline script and every read of the copy check it synchronously, so an entry this
 * device knows was removed is never painted, not even in the first frame.
 */
export const REMOVALS_KEY = 'geocache-logbook-removals';

/** How many removed ids are kept: the copy is rewritten without them at the next keep, long before this many. */
export const KEPT_REMOVALS = 5_000;

export interface Removals {
  /** The last change applied, or null when this device has not read the changes yet. */
  readonly cursor: number | null;
  /** Oldest learned first. */
  readonly removed: readonly number[];
}

const NONE: Removals = { cursor: null, removed: [] };

/** What was learned; none where localStorage is missing, off or holds something else. */
export function readRemovals(): Removals {
  try {
    const text = localStorage.getItem(REMOVALS_KEY);
    if (text === null) return NONE;
    const { cursor, removed } = JSON.parse(text) as Partial<Removals>;
    const ids = Array.isArray(removed) ? removed.filter((id): id is number => typeof id === 'number') : [];
    return { cursor: typeof cursor === 'number' && Number.isSafeInteger(cursor) ? cursor : null, removed: ids };
  } catch {
    return NONE;
  }
}

/** The removed ids learned on this device. */
export function removedIds(): ReadonlySet<number> {
  return new Set(readRemovals().removed);
}

/** `entries` without those learned removed (the same array when none is). */
export function withoutRemoved<T extends Pick<KeptEntry, 'id'>>(entries: T[], removed: ReadonlySet<number> = removedIds()): T[] {
  if (removed.size === 0 || !entries.some((entry) => removed.has(entry.id))) return entries;
  return entries.filter((entry) => !removed.has(entry.id));
}

/**
 * Records `removed` as removed and `restored` as no longer, and `cursor` as the last change applied when given.
 * False where it could not be kept (the page then still hides them for this visit).
 */
export function writeRemovals(removed: readonly number[], restored: readonly number[], cursor?: number): boolean {
  const known = readRemovals();
  const back = new Set(restored);
  const ids = [...new Set([...known.removed, ...removed])].filter((id) => !back.has(id)).slice(-KEPT_REMOVALS);
  try {
    localStorage.setItem(REMOVALS_KEY, JSON.stringify({ cursor: cursor ?? known.cursor, removed: ids }));
    return true;
  } catch {
    return false;
  }
}
