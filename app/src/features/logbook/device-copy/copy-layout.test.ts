import { describe, expect, it } from 'vitest';
import { HEAD_ENTRIES } from './copy-database';
import { headIsWhole, joinCopy, readHead, readWhole, splitCopy } from './copy-layout';
import type { KeptEntry } from '../types';

/** `count` entries, newest first. */
function entries(count: number): KeptEntry[] {
  return Array.from({ length: count }, (_, index) => ({
    id: count - index,
    created_at: new Date(Date.UTC(2024, 4, 1) - index * 60_000).toISOString(),
    name: `n${count - index}`,
    message: 'm',
  }));
}

const times = { updatedAt: 20, reconciledAt: 10 };

describe('the copy\'s layout', () => {
  it('keeps the newest entries and the size in the head, the older ones in the rest, and joins them back', () => {
    const all = entries(HEAD_ENTRIES + 7);
    const { head, rest } = splitCopy(all, times);
    expect(head.entries).toEqual(all.slice(0, HEAD_ENTRIES));
    expect(head).toMatchObject({ count: HEAD_ENTRIES + 7, ...times });
    expect(rest.entries).toEqual(all.slice(HEAD_ENTRIES));
    expect(headIsWhole(head)).toBe(false);
    expect(joinCopy(head, rest)).toEqual({ entries: all, ...times });
  });

  it('holds a short copy in the head alone: no rest is needed to join it', () => {
    const all = entries(3);
    const { head, rest } = splitCopy(all, times);
    expect(rest.entries).toEqual([]);
    expect(headIsWhole(head)).toBe(true);
    expect(joinCopy(head, undefined)).toEqual({ entries: all, ...times });
    expect(joinCopy(splitCopy([], times).head, undefined)).toEqual({ entries: [], ...times });
  });

  it('is no copy when the rest is missing or does not match the head\'s size', () => {
    const { head, rest } = splitCopy(entries(HEAD_ENTRIES + 2), times);
    expect(joinCopy(head, undefined)).toBeNull();
    expect(joinCopy(head, { entries: rest.entries.slice(1) })).toBeNull();
    expect(joinCopy(head, { rows: rest.entries })).toBeNull();
  });

  it('reads only records it knows: a head needs its size, a whole copy its entries and both times', () => {
    const { head } = splitCopy(entries(2), times);
    expect(readHead(head)).toEqual(head);
    expect(readHead({ ...head, count: undefined })).toBeNull();
    expect(readHead({ ...head, count: 1 })).toBeNull();
    expect(readHead({ ...head, count: 2.5 })).toBeNull();
    expect(readHead(null)).toBeNull();
    expect(readWhole({ entries: [], ...times })).toEqual({ entries: [], ...times });
    expect(readWhole({ entries: [], updatedAt: 1 })).toBeNull();
    expect(readWhole({ rows: [], ...times })).toBeNull();
    expect(readWhole('state')).toBeNull();
  });
});
