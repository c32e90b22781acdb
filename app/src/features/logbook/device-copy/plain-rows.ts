import type { EntryRows, KeptEntry } from '../types';

/** Kept entries in the shape the list reads (as the client's EntryList offers them), newest first. */
export function plainRows(entries: readonly KeptEntry[]): EntryRows {
  const at = (index: number): KeptEntry => {
    const entry = Number.isInteger(index) ? entries[index] : undefined;
    if (entry === undefined) throw new RangeError(`index out of range: the list has ${entries.length} entries`);
    return entry;
  };
  return {
    length: entries.length,
    ids: () => new Float64Array(entries.map((entry) => entry.id)),
    createdAt: (index) => at(index).created_at,
    name: (index) => at(index).name,
    message: (index) => at(index).message,
  };
}
