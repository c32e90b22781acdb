import { OVERLAP_MS } from '../device-copy/catch-up';
import { instantMicros } from '../device-copy/newest-first';
import type { EntryRows, KeptEntry } from '../types';

/**
 * Where a catch-up read after a (re)subscription starts: a minute before the newest entry shown (the device copy's
 * catch-up overlap: an entry stamped earlier can commit later), or undefined to read every entry when none is
 * shown or the newest one's time cannot be read.
 */
export function catchUpSince(arrived: readonly KeptEntry[], base: EntryRows): string | undefined {
  const newest = newestShown(arrived, base);
  if (newest === undefined) return undefined;
  const micros = instantMicros(newest);
  if (Number.isNaN(micros)) return undefined;
  return new Date(Math.floor(micros / 1000) - OVERLAP_MS).toISOString();
}

/** The `created_at` of the newest entry shown: the newer of the first arrival and the list's first row. */
export function newestShown(arrived: readonly KeptEntry[], base: EntryRows): string | undefined {
  const fromBase = base.length > 0 ? base.createdAt(0) : undefined;
  const fromArrivals = arrived[0]?.created_at;
  if (fromBase === undefined || fromArrivals === undefined) return fromBase ?? fromArrivals;
  return instantMicros(fromArrivals) > instantMicros(fromBase) ? fromArrivals : fromBase;
}
