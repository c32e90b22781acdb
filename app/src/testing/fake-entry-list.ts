// Test support: an `EntryList` as the wasm client returns it, made from plain entries.
import { vi, type Mock } from 'vitest';
import type { EntryList, LogEntry } from 'geocache-client';

const freeSpies = new WeakMap<EntryList, Mock<() => void>>();

/**
 * A stand-in for the client's `EntryList`: rows read by index, `free` recorded (see `freeSpy`), and
 * `withOlderFrom` as the client defines it. Reading a freed list throws, as a freed wasm handle does.
 */
export function fakeEntryList(entries: readonly LogEntry[]): EntryList {
  let freed = false;
  const at = (index: number): LogEntry => {
    if (freed) throw new Error('null pointer passed to rust');
    const entry = Number.isInteger(index) ? entries[index] : undefined;
    if (!entry) throw new RangeError(`index out of range: the list has ${entries.length} entries`);
    return entry;
  };
  const free = vi.fn<() => void>(() => {
    freed = true;
  });
  const fake: EntryList = {
    length: entries.length,
    id: (index: number) => at(index).id,
    ids: () => {
      if (freed) throw new Error('null pointer passed to rust');
      return Float64Array.from(entries, (entry) => entry.id);
    },
    createdAt: (index: number) => at(index).created_at,
    name: (index: number) => at(index).name,
    message: (index: number) => at(index).message,
    get: (index: number) => ({ ...at(index) }),
    toArray: () => {
      if (freed) throw new Error('null pointer passed to rust');
      return entries.map((entry) => ({ ...entry }));
    },
    withOlderFrom: (older) => {
      if (freed) throw new Error('null pointer passed to rust');
      return fakeEntryList([...entries, ...olderThan(entries, older)]);
    },
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

/** The entries of `older` that come strictly after the last of `entries` (created_at desc, id desc), not in `entries`. */
function olderThan(entries: readonly LogEntry[], older: EntryList): LogEntry[] {
  const last = entries[entries.length - 1];
  const ids = new Set(entries.map((entry) => entry.id));
  const rest = older.toArray().filter((entry) => !ids.has(entry.id));
  if (!last) return rest;
  return rest.filter((entry) => {
    const byTime = Date.parse(entry.created_at) - Date.parse(last.created_at);
    return byTime < 0 || (byTime === 0 && entry.id < last.id);
  });
}
