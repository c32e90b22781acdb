import { describe, expect, it } from 'vitest';
import { mergeNewer, OVERLAP_MS, planRead, RECONCILE_AFTER_MS } from './catch-up';
import type { KeptCopy } from '../types';

const NOW = Date.parse('2024-05-02T12:00:00Z');
const entry = (id: number, created_at: string, message = 'm') => ({ id, created_at, name: `n${id}`, message });
const copy = (reconciledAt: number, entries = [entry(2, '2024-05-02T11:00:00.123456+00:00'), entry(1, '2024-05-01T10:00:00+00:00')]): KeptCopy => ({
  entries,
  updatedAt: reconciledAt,
  reconciledAt,
});

describe('the read a visit makes', () => {
  it('reads only entries from a minute before the newest kept one when the copy was reconciled within a day', () => {
    expect(planRead(copy(NOW - 1000), NOW)).toEqual({ kind: 'newer', since: '2024-05-02T10:59:00.123Z' });
    expect(Date.parse('2024-05-02T11:00:00.123Z') - Date.parse('2024-05-02T10:59:00.123Z')).toBe(OVERLAP_MS);
    expect(planRead(copy(NOW - RECONCILE_AFTER_MS), NOW).kind).toBe('newer');
  });

  it('reads every entry without a copy, with an empty one, or when its last whole read is over a day old or in the future', () => {
    expect(planRead(null, NOW)).toEqual({ kind: 'whole' });
    expect(planRead(copy(NOW, []), NOW)).toEqual({ kind: 'whole' });
    expect(planRead(copy(NOW - RECONCILE_AFTER_MS - 1), NOW)).toEqual({ kind: 'whole' });
    expect(planRead(copy(0), NOW)).toEqual({ kind: 'whole' });
    expect(planRead(copy(NOW + 60_000), NOW)).toEqual({ kind: 'whole' });
    expect(planRead(copy(NOW, [entry(1, 'yesterday')]), NOW)).toEqual({ kind: 'whole' });
  });
});

describe('merging newer entries into the copy', () => {
  it('keeps each id once, the newer read winning, newest first (the overlap brings kept entries again)', () => {
    const kept = [entry(3, '2024-05-02T11:00:00+00:00'), entry(2, '2024-05-02T10:59:30+00:00'), entry(1, '2024-05-01T10:00:00+00:00')];
    const newer = [entry(4, '2024-05-02T11:05:00+00:00'), entry(3, '2024-05-02T11:00:00+00:00', 'edited'), entry(2, '2024-05-02T10:59:30+00:00')];
    const merged = mergeNewer(kept, newer);
    expect(merged.map((e) => e.id)).toEqual([4, 3, 2, 1]);
    expect(merged[1]?.message).toBe('edited');
  });

  it('drops nothing: only a whole read removes entries', () => {
    expect(mergeNewer([entry(1, '2024-05-01T10:00:00+00:00')], []).map((e) => e.id)).toEqual([1]);
  });
});
