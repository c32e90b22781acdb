// Test support: an `EntryList` as the wasm client returns it, made from plain entries.
import { vi, type Mock } from 'vitest';
import type { EntryList, LogEntry } from 'geocache-client';

const freeSpies = new WeakMap<EntryList, Mock<() => void>>();

/** A stand-in for the client's `EntryList`: rows read by index, `free` recorded (see `freeSpy`). */
export function fakeEntryList(entries: readonly LogEntry[]): EntryList {
  const at = (index: number): LogEntry => {
    const entry = Number.isInteger(index) ? entries[index] : undefined;
    if (!entry) throw new RangeError(`index out of range: the list has ${entries.length} entries`);
    return entry;
  };
  const free = vi.fn<() => void>();
  const fake: EntryList = {
    length: entries.length,
    id: (index: number) => at(index).id,
    ids: () => Float64Array.from(entries, (entry) => entry.id),
    createdAt: (index: number) => at(index).created_at,
    name: (index: number) => at(index).name,
    message: (index: number) => at(index).message,
    get: (index: number) => ({ ...at(index) }),
    toArray: () => entries.map((entry) => ({ ...entry })),
    free,
  };
  freeSpies.set(fake, free);
  return fake;
}

/** The spy behind a fake list's `free()`. */
export function freeSpy(list: EntryList): Mock<() => void> {
  const spy = freeSpies.get(list);
  if (!spy) throw new Error('not a fake entry list');
  return spy;
}
