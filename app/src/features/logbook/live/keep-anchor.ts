import { useLayoutEffect, useRef } from 'react';
import type { Virtualizer, VirtualItem } from '@tanstack/react-virtual';

/** A row's key, as the virtualiser names it. */
type Key = VirtualItem['key'];

/** A row the reader is looking at, and where it started (window scroll coordinates). */
export interface Anchor {
  readonly key: Key;
  readonly start: number;
}

/** The first row that reaches below `offset` (the window's top): the one the reader's eye is on. */
export function anchorAt(rows: readonly VirtualItem[], offset: number): Anchor | null {
  const row = rows.find((candidate) => candidate.end > offset);
  return row === undefined ? null : { key: row.key, start: row.start };
}

/** How far the anchor row moved (down is positive), or 0 when it is gone. */
export function anchorShift(anchor: Anchor, rows: readonly VirtualItem[]): number {
  const row = rows.find((candidate) => candidate.key === anchor.key);
  return row === undefined ? 0 : row.start - anchor.start;
}

/**
 * Keeps the row the reader is looking at in place when rows are inserted above it (entries arriving live at the
 * top), once the reader has scrolled into the list: the window scrolls by as much as the row moved. At the top of
 * the list nothing moves, so the new entries come into view. (The browser's own scroll anchoring does not apply
 * here: the list's top padding changes with every scroll of a virtualised list, which suspends it.)
 */
export function useKeepAnchor(virtualizer: Virtualizer<Window, Element>, firstKey: Key | undefined): void {
  const seen = useRef<{ firstKey: Key | undefined; anchor: Anchor | null; scrolledIn: boolean }>({
    firstKey,
    anchor: null,
    scrolledIn: false,
  });
  useLayoutEffect(() => {
    const before = seen.current;
    const rows = virtualizer.getVirtualItems();
    if (firstKey !== before.firstKey && before.anchor !== null && before.scrolledIn) {
      const shift = anchorShift(before.anchor, virtualizer.measurementsCache);
      if (shift !== 0) window.scrollTo({ top: window.scrollY + shift, behavior: 'instant' });
    }
    const offset = window.scrollY;
    seen.current = { firstKey, anchor: anchorAt(rows, offset), scrolledIn: offset > virtualizer.options.scrollMargin };
  });
}
