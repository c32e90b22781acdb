import type { KeptEntry } from '../types';

/**
 * The inserted row of a postgres_changes payload (`payload.new`) as an entry, or null when it is not one (a
 * misconfigured server, a column renamed): such a row is skipped rather than shown half-read.
 */
export function liveEntry(row: unknown): KeptEntry | null {
  if (typeof row !== 'object' || row === null) return null;
  const { id, created_at, name, message } = row as Record<string, unknown>;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) return null;
  if (typeof created_at !== 'string' || typeof name !== 'string' || typeof message !== 'string') return null;
  return { id, created_at, name, message };
}

/** The id of a deleted row's payload (`payload.old`, which holds only the primary key), or null when it has none. */
export function removedId(row: unknown): number | null {
  if (typeof row !== 'object' || row === null) return null;
  const { id } = row as Record<string, unknown>;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
}
