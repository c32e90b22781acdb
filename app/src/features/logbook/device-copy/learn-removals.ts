import { keepFirstCards, readFirstCards } from './first-cards';
import { writeRemovals } from './removals';

/**
 * Records what this device learned (device-copy/removals.ts) and rewrites the first-frame cards without the removed
 * entries at once, so no later visit paints them before its scripts run. The copy in IndexedDB is read without them
 * from now on and rewritten without them at its next keep.
 */
export function learnRemovals(removed: readonly number[], restored: readonly number[], cursor?: number): void {
  writeRemovals(removed, restored, cursor);
  if (removed.length === 0) return;
  const cards = readFirstCards();
  if (cards !== null) keepFirstCards(cards);
}
