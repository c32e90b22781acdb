import { newestFirst } from '../device-copy/newest-first';
import type { EntryRows, KeptEntry } from '../types';

/**
 * Entries that arrived while the page is open (live or by a catch-up read), newest first, each id once: `added`
 * over `arrived`, the later copy of an id winning (a catch-up read returns the row as stored now).
 */
export function addArrivals(arrived: readonly KeptEntry[], added: readonly KeptEntry[]): KeptEntry[] {
  return newestFirst([...added, ...arrived]);
}

/** The ids of a list, read out of it in one copy. */
export function idsOf(rows: EntryRows): Set<number> {
  return new Set(rows.ids());
}

/** The arrivals not already in `listed`: those the page has not shown yet. */
export function notListed(arrived: readonly KeptEntry[], listed: ReadonlySet<number>): KeptEntry[] {
  return arrived.filter((entry) => !listed.has(entry.id));
}

/**
 * The list shown: the arrivals not in `base`, then `base` (a read's list, which wins for an id it holds). The
 * arrivals are few (a reload after a sign or the next visit folds them into a read), so they are plain objects;
 * `base` stays where it is (in wasm memory).
 */
export function withArrivals(arrived: readonly KeptEntry[], base: EntryRows, baseIds: ReadonlySet<number> = idsOf(base)): EntryRows {
  const top = notListed(arrived, baseIds);
  if (top.length === 0) return base;
  const at = <T>(index: number, fromTop: (entry: KeptEntry) => T, fromBase: (index: number) => T): T => {
    if (!Number.isInteger(index) || index < 0) throw new RangeError(`index out of range: the list has ${top.length + base.length} entries`);
    const entry = top[index];
    return entry === undefined ? fromBase(index - top.length) : fromTop(entry);
  };
  return {
    length: top.length + base.length,
    ids: () => {
      const ids = new Float64Array(top.length + base.length);
      ids.set(top.map((entry) => entry.id));
      ids.set(base.ids(), top.length);
      return ids;
    },
    createdAt: (index) => at(index, (entry) => entry.created_at, (rest) => base.createdAt(rest)),
    name: (index) => at(index, (entry) => entry.name, (rest) => base.name(rest)),
    message: (index) => at(index, (entry) => entry.message, (rest) => base.message(rest)),
  };
}
