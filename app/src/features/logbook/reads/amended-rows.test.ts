import { describe, expect, it } from 'vitest';
import { plainRows } from '../device-copy/plain-rows';
import { amendedRows } from './amended-rows';

const at = (id: number, time: string) => ({ id, created_at: time, name: `n${id}`, message: `m${id}` });
const base = plainRows([at(5, '2024-05-05T10:00:00+00:00'), at(3, '2024-05-03T10:00:00+00:00'), at(1, '2024-05-01T10:00:00+00:00')]);
const names = (rows: ReturnType<typeof amendedRows>) => Array.from({ length: rows.length }, (_, index) => rows.name(index));

describe('the list amended by removals and restores', () => {
  it('is the list itself when nothing applies', () => {
    expect(amendedRows(base, new Set(), [])).toBe(base);
    expect(amendedRows(base, new Set([42]), [])).toBe(base);
  });

  it('leaves out the removed ids', () => {
    const rows = amendedRows(base, new Set([3]), []);
    expect(names(rows)).toEqual(['n5', 'n1']);
    expect([...rows.ids()]).toEqual([5, 1]);
  });

  it('places each restored entry by created_at (then id), not on top, and once', () => {
    const rows = amendedRows(base, new Set([5]), [at(2, '2024-05-02T10:00:00+00:00'), at(4, '2024-05-03T10:00:00+00:00'), at(1, '2024-05-01T10:00:00+00:00')]);
    expect(names(rows)).toEqual(['n4', 'n3', 'n2', 'n1']);
    expect(rows.createdAt(2)).toBe('2024-05-02T10:00:00+00:00');
    expect(rows.message(0)).toBe('m4');
    expect(() => rows.name(4)).toThrow(RangeError);
  });
});
