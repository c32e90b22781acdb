import { describe, expect, it } from 'vitest';
import { instantMicros, newestFirst } from './newest-first';
import { plainRows } from './plain-rows';
import type { KeptEntry } from '../types';

const entry = (id: number, created_at: string): KeptEntry => ({ id, created_at, name: `n${id}`, message: 'm' });

describe('instantMicros', () => {
  it('reads every offset form to the microsecond', () => {
    const utc = instantMicros('2024-05-01T10:00:00.123456+00:00');
    expect(instantMicros('2024-05-01 12:00:00.123456+02')).toBe(utc);
    expect(instantMicros('2024-05-01T10:00:00.123456Z')).toBe(utc);
    expect(instantMicros('2024-05-01T10:00:00.123457+00:00') - utc).toBe(1);
    expect(instantMicros('2024-05-01T10:00:00+00:00')).toBe(Date.UTC(2024, 4, 1, 10) * 1000);
    expect(instantMicros('yesterday')).toBeNaN();
  });
});

describe('newestFirst', () => {
  it('orders by created_at then id, both descending, and keeps each id once', () => {
    const sorted = newestFirst([
      entry(1, '2024-05-01T10:00:00.000001+00:00'),
      entry(3, '2024-05-01T10:00:00.000002+00:00'),
      entry(2, '2024-05-01T12:00:00.000002+02:00'),
      entry(3, '2030-01-01T00:00:00Z'),
    ]);
    expect(sorted.map((one) => one.id)).toEqual([3, 2, 1]);
    expect(sorted[0]?.created_at).toBe('2024-05-01T10:00:00.000002+00:00');
  });
});

describe('plainRows', () => {
  it('reads kept entries as the list reads the client\'s, refusing indexes out of range', () => {
    const rows = plainRows([entry(2, 'b'), entry(1, 'a')]);
    expect(rows.length).toBe(2);
    expect([...rows.ids()]).toEqual([2, 1]);
    expect([rows.name(1), rows.createdAt(0), rows.message(0)]).toEqual(['n1', 'b', 'm']);
    expect(() => rows.name(2)).toThrow(RangeError);
    expect(() => rows.name(0.5)).toThrow(RangeError);
  });
});
