import { PAINTED_CARDS } from '../first-paint/paint-entries';
import type { KeptEntry } from '../types';
import { removedIds, withoutRemoved } from './removals';

/**
 * The newest entries of the copy, as many as the served page paints, also kept in localStorage under this key:
 * the served page's inline script reads them synchronously (first-paint/early-paint.ts) and paints them the moment
 * the list is parsed, in the page's first frame. An IndexedDB read takes a round trip through the browser, whose
 * answer a slow phone's main thread queues behind the page's loading, past that frame. The copy itself stays in
 * IndexedDB: this is written after each write of it (copy-store.ts), and only ever painted.
 */
export const FIRST_CARDS_KEY = 'geocache-logbook-first-cards';

const isEntry = (value: unknown): value is KeptEntry => {
  if (typeof value !== 'object' || value === null) return false;
  const { id, created_at, name, message } = value as Record<string, unknown>;
  return typeof id === 'number' && typeof created_at === 'string' && typeof name === 'string' && typeof message === 'string';
};

/**
 * Keeps the newest of `entries` (newest first), without any this device has learned were removed: checked as they are
 * written, since a copy's write that began before a removal was learned ends after it. Where localStorage is missing,
 * off or full, nothing is kept.
 */
export function keepFirstCards(entries: readonly KeptEntry[]): void {
  try {
    const removed = removedIds();
    const newest: KeptEntry[] = [];
    for (const { id, created_at, name, message } of entries) {
      if (newest.length === PAINTED_CARDS) break;
      if (!removed.has(id)) newest.push({ id, created_at, name, message });
    }
    localStorage.setItem(FIRST_CARDS_KEY, JSON.stringify({ entries: newest }));
  } catch {
    // The kept entries' first frame then waits for the IndexedDB read.
  }
}

/** The entries kept for the first frame, newest first; null when there are none (or they are not entries). */
export function readFirstCards(): KeptEntry[] | null {
  try {
    const text = localStorage.getItem(FIRST_CARDS_KEY);
    if (text === null) return null;
    const { entries } = JSON.parse(text) as { entries?: unknown };
    if (!Array.isArray(entries) || !entries.every(isEntry)) return null;
    // A removal learned since they were kept is not painted (device-copy/learn-removals.ts also rewrites them).
    const shown = withoutRemoved(entries);
    return shown.length > 0 ? shown : null;
  } catch {
    return null;
  }
}
