import { afterEach, describe, expect, it } from 'vitest';
import { joinCopy, readHead, splitCopy } from './copy-layout';
import { FIRST_CARDS_KEY, keepFirstCards, readFirstCards } from './first-cards';
import { learnRemovals } from './learn-removals';
import { KEPT_REMOVALS, readRemovals, REMOVALS_KEY, withoutRemoved, writeRemovals } from './removals';

const entry = (id: number) => ({ id, created_at: `2024-05-0${id}T10:00:00+00:00`, name: `n${id}`, message: 'm' });
const times = { updatedAt: 1, reconciledAt: 1 };

afterEach(() => localStorage.clear());

describe('the removals a device learned', () => {
  it('are none until learned, and keep the cursor and ids across reads', () => {
    expect(readRemovals()).toEqual({ cursor: null, removed: [] });
    writeRemovals([4, 2], [], 7);
    writeRemovals([9], [2]);
    expect(readRemovals()).toEqual({ cursor: 7, removed: [4, 9] });
  });

  it('read as none when the stored value is not theirs', () => {
    localStorage.setItem(REMOVALS_KEY, '{not json');
    expect(readRemovals()).toEqual({ cursor: null, removed: [] });
    localStorage.setItem(REMOVALS_KEY, JSON.stringify({ cursor: 'x', removed: [1, 'two'] }));
    expect(readRemovals()).toEqual({ cursor: null, removed: [1] });
  });

  it('keep the latest ids only, up to their limit', () => {
    writeRemovals(Array.from({ length: KEPT_REMOVALS + 2 }, (_, index) => index), []);
    const { removed } = readRemovals();
    expect(removed).toHaveLength(KEPT_REMOVALS);
    expect(removed[0]).toBe(2);
  });

  it('leave the copy, its head and the first-frame cards without the removed entries', () => {
    const entries = [entry(3), entry(2), entry(1)];
    keepFirstCards(entries);
    const { head, rest } = splitCopy(entries, times);
    learnRemovals([2], []);
    expect(withoutRemoved(entries).map(({ id }) => id)).toEqual([3, 1]);
    expect(readHead(head)?.entries.map(({ id }) => id)).toEqual([3, 1]);
    expect(joinCopy(head, rest)?.entries.map(({ id }) => id)).toEqual([3, 1]);
    expect(readFirstCards()?.map(({ id }) => id)).toEqual([3, 1]);
    // Rewritten at once, so the served page's inline script never reads it either.
    expect(localStorage.getItem(FIRST_CARDS_KEY)).not.toContain('"id":2');
  });

  it('let a restored entry show again', () => {
    learnRemovals([2], []);
    learnRemovals([], [2], 5);
    expect(readRemovals()).toEqual({ cursor: 5, removed: [] });
    expect(withoutRemoved([entry(2)])).toHaveLength(1);
  });
});
