import { instantMicros, newestFirst } from './newest-first';
import type { KeptCopy, KeptEntry } from '../types';

/**
 * How far before the newest kept entry a catch-up read starts. Entries are stamped by the server when their
 * insert runs, not when it commits, so one stamped just before the newest kept entry can commit after that copy
 * was read; a minute covers any insert the server still lets run.
 */
export const OVERLAP_MS = 60_000;

/** A copy not brought up to date by a whole read for this long is read whole again, so removed entries go. */
export const RECONCILE_AFTER_MS = 24 * 60 * 60 * 1000;

/** What a visit reads: every entry, or only those newer than `since` (merged into the kept copy). */
export type ReadPlan = { readonly kind: 'whole' } | { readonly kind: 'newer'; readonly since: string };

const WHOLE: ReadPlan = { kind: 'whole' };

/**
 * The read a visit makes given the copy on this device at `now` (ms since the epoch): a whole read without a
 * copy, with an empty one, when its last whole read is more than a day old (or in the future: the clock moved),
 * or when its newest entry's time cannot be read; otherwise only the entries from a minute before its newest.
 */
export function planRead(copy: KeptCopy | null, now: number): ReadPlan {
  const newest = copy?.entries[0];
  if (copy === null || newest === undefined) return WHOLE;
  const age = now - copy.reconciledAt;
  if (!(age >= 0 && age <= RECONCILE_AFTER_MS)) return WHOLE;
  const micros = instantMicros(newest.created_at);
  if (Number.isNaN(micros)) return WHOLE;
  return { kind: 'newer', since: new Date(Math.floor(micros / 1000) - OVERLAP_MS).toISOString() };
}

/** The kept entries with the newer ones read over them: each id once (the newer read wins), newest first. */
export function mergeNewer(kept: readonly KeptEntry[], newer: readonly KeptEntry[]): KeptEntry[] {
  return newestFirst([...newer, ...kept]);
}
