import { instantMicros } from '../device-copy/newest-first';
import type { EntryRows, KeptEntry } from '../types';

/**
 * `base` (newest first) without the `removed` ids and with the `restored` entries it does not hold, each at its
 * place by `created_at` (then id), as the server orders them: an entry put back by the owner shows where it was, not
 * on top. `base` itself when nothing changes. The restored entries are few (plain objects); `base` stays where it is
 * (in wasm memory), read by index.
 */
export function amendedRows(base: EntryRows, removed: ReadonlySet<number>, restored: readonly KeptEntry[]): EntryRows {
  if (removed.size === 0 && restored.length === 0) return base;
  const ids = base.ids();
  const kept: number[] = [];
  for (let index = 0; index < ids.length; index += 1) if (!removed.has(ids[index] as number)) kept.push(index);
  const listed = new Set(ids);
  const extra = restored.filter((entry) => !listed.has(entry.id) && !removed.has(entry.id));
  if (extra.length === 0 && kept.length === ids.length) return base;
  // Each slot is a base index or a restored entry.
  const slots: (number | KeptEntry)[] = [...kept];
  for (const entry of extra) slots.splice(placeOf(entry, slots, base, ids), 0, entry);
  const read = <T>(index: number, fromEntry: (entry: KeptEntry) => T, fromBase: (index: number) => T): T => {
    const slot = Number.isInteger(index) ? slots[index] : undefined;
    if (slot === undefined) throw new RangeError(`index out of range: the list has ${slots.length} entries`);
    return typeof slot === 'number' ? fromBase(slot) : fromEntry(slot);
  };
  return {
    length: slots.length,
    ids: () => new Float64Array(slots.map((slot) => (typeof slot === 'number' ? (ids[slot] as number) : slot.id))),
    createdAt: (index) => read(index, (entry) => entry.created_at, (at) => base.createdAt(at)),
    name: (index) => read(index, (entry) => entry.name, (at) => base.name(at)),
    message: (index) => read(index, (entry) => entry.message, (at) => base.message(at)),
  };
}

/** Where `entry` goes among `slots` (newest first): before the first slot older than it. A binary search. */
function placeOf(entry: KeptEntry, slots: readonly (number | KeptEntry)[], base: EntryRows, ids: Float64Array): number {
  const micros = instantMicros(entry.created_at);
  const olderThanEntry = (slot: number | KeptEntry) => {
    const [at, id] = typeof slot === 'number' ? [instantMicros(base.createdAt(slot)), ids[slot] as number] : [instantMicros(slot.created_at), slot.id];
    return at < micros || (at === micros && id < entry.id);
  };
  let low = 0;
  let high = slots.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (olderThanEntry(slots[middle] as number | KeptEntry)) high = middle;
    else low = middle + 1;
  }
  return low;
}
