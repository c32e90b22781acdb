import { describe, expect, it } from 'vitest';
import { fakeEntryList } from './fake-entry-list';
import type { LogEntry } from './list-entries';
import { withNewest } from './newest-first';

const entry = (id: number): LogEntry => ({ id, created_at: `2024-05-0${id}T10:00:00+00:00`, name: `n${id}`, message: `m${id}` });
const rows = (...ids: number[]) => fakeEntryList(ids.map(entry));

function read(list: NonNullable<ReturnType<typeof withNewest>>) {
  return Array.from({ length: list.length }, (_, index) => [list.name(index), list.createdAt(index), list.message(index)]);
}

describe('withNewest', () => {
  it('puts the newest entries on top of the shown ones they reach into', () => {
    const merged = withNewest(rows(5, 4, 3), rows(3, 2, 1));
    expect(merged && Array.from(merged.ids())).toEqual([5, 4, 3, 2, 1]);
    expect(merged && read(merged)).toEqual([5, 4, 3, 2, 1].map((id) => [`n${id}`, entry(id).created_at, `m${id}`]));
  });

  it('keeps the newest read of an entry both lists hold, and drops shown entries above the overlap', () => {
    const merged = withNewest(rows(4, 2), rows(3, 2, 1));
    expect(merged && Array.from(merged.ids())).toEqual([4, 2, 1]);
  });

  it('gives nothing when the newest entries do not reach the shown ones, or there are none', () => {
    expect(withNewest(rows(9, 8), rows(3, 2, 1))).toBeNull();
    expect(withNewest(rows(), rows(3, 2, 1))).toBeNull();
    expect(withNewest(rows(1), rows())).toBeNull();
  });

  it('is the newest entries alone when they reach the last shown one', () => {
    const merged = withNewest(rows(2, 1), rows(1));
    expect(merged && Array.from(merged.ids())).toEqual([2, 1]);
    expect(merged?.length).toBe(2);
  });
});
