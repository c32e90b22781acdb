import { afterEach, describe, expect, it, vi } from 'vitest';
import { PAINTED_CARDS } from '../first-paint/paint-entries';
import { FIRST_CARDS_KEY, keepFirstCards, readFirstCards } from './first-cards';
import { writeRemovals } from './removals';
import type { KeptEntry } from '../types';

const entry = (id: number): KeptEntry => ({ id, created_at: `2024-05-01T10:00:${String(id % 60).padStart(2, '0')}+00:00`, name: `N${id}`, message: `M${id}` });

afterEach(() => {
  vi.restoreAllMocks();
  localStorage.clear();
});

describe('first cards', () => {
  it('keeps the newest entries the served page paints, as plain entries, and reads them back', () => {
    const entries = Array.from({ length: 30 }, (_, index) => ({ ...entry(100 - index), extra: 'not kept' }));
    keepFirstCards(entries);
    expect(readFirstCards()).toEqual(entries.slice(0, PAINTED_CARDS).map(({ id, created_at, name, message }) => ({ id, created_at, name, message })));
  });

  it('never keeps an entry learned removed, even from a list taken before the removal was learned', () => {
    const entries = Array.from({ length: PAINTED_CARDS + 2 }, (_, index) => entry(100 - index));
    writeRemovals([99], []);
    keepFirstCards(entries);
    const text = localStorage.getItem(FIRST_CARDS_KEY) ?? '';
    const kept = (JSON.parse(text) as { entries: KeptEntry[] }).entries;
    expect(kept.map(({ id }) => id)).toEqual(entries.filter(({ id }) => id !== 99).slice(0, PAINTED_CARDS).map(({ id }) => id));
  });

  it('reads nothing when none are kept, none are left, or what is kept is not entries', () => {
    expect(readFirstCards()).toBeNull();
    keepFirstCards([]);
    expect(readFirstCards()).toBeNull();
    for (const text of ['not json', '{"entries": "no"}', '{"entries": [{"id": 1}]}', 'null']) {
      localStorage.setItem(FIRST_CARDS_KEY, text);
      expect(readFirstCards()).toBeNull();
    }
  });

  it('does without localStorage: a full quota keeps nothing and throws nothing', () => {
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    expect(() => keepFirstCards([entry(1)])).not.toThrow();
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    expect(readFirstCards()).toBeNull();
  });
});
