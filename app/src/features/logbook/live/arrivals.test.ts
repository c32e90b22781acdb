import { describe, expect, it } from 'vitest';
import { plainRows } from '../device-copy/plain-rows';
import { addArrivals, notListed, withArrivals } from './arrivals';

const ann = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'First!' };
const bo = { id: 2, created_at: '2024-05-02T10:00:00+00:00', name: 'Bo', message: 'TFTC' };
const cy = { id: 3, created_at: '2024-05-03T10:00:00+00:00', name: 'Cy', message: 'Hi' };
const dee = { id: 4, created_at: '2024-05-03T10:00:00.000001+00:00', name: 'Dee', message: 'Yo' };

function names(rows: ReturnType<typeof withArrivals>): string[] {
  return Array.from({ length: rows.length }, (_, index) => rows.name(index));
}

describe('addArrivals', () => {
  it('keeps the arrivals newest first (to the microsecond), each id once, the later copy winning', () => {
    const first = addArrivals([], [cy]);
    const second = addArrivals(first, [dee, { ...cy, message: 'edited' }]);
    expect(second).toEqual([dee, { ...cy, message: 'edited' }]);
    expect(first).toEqual([cy]);
  });
});

describe('notListed', () => {
  it('drops the arrivals whose id is listed', () => {
    expect(notListed([dee, cy], new Set([3]))).toEqual([dee]);
  });
});

describe('withArrivals', () => {
  it('shows the arrivals not in the list on top of it, each id once (the list\'s row wins)', () => {
    const base = plainRows([bo, ann]);
    const rows = withArrivals([cy, { ...bo, name: 'Bo (live copy)' }], base);
    expect(names(rows)).toEqual(['Cy', 'Bo', 'Ann']);
    expect(Array.from(rows.ids())).toEqual([3, 2, 1]);
    expect(rows.createdAt(0)).toBe(cy.created_at);
    expect(rows.message(2)).toBe('First!');
  });

  it('is the list itself when nothing new arrived', () => {
    const base = plainRows([bo, ann]);
    expect(withArrivals([bo], base)).toBe(base);
    expect(withArrivals([], base)).toBe(base);
  });

  it('refuses an index outside the list, as the client\'s list does', () => {
    const rows = withArrivals([cy], plainRows([ann]));
    expect(() => rows.name(2)).toThrow(RangeError);
    expect(() => rows.name(-1)).toThrow('index out of range: the list has 2 entries');
    expect(() => rows.name(0.5)).toThrow(RangeError);
  });
});
