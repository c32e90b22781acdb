import { useMemo, useSyncExternalStore } from 'react';
import { LayoutStore, type ListLayout } from './layout-store';

/**
 * Where the list starts in the document (the window scroll reaches it there; the form above it can
 * grow) and the gap between its cards (the stylesheet's row gap). Read when the list mounts and
 * whenever the page's size changes, never during a render (that would force a layout per frame).
 */
export function useListLayout(list: HTMLUListElement | null): ListLayout {
  const store = useMemo(() => new LayoutStore(list), [list]);
  // The same snapshot on the server: the build prerenders the logbook before any list is laid out.
  return useSyncExternalStore(store.subscribe, store.snapshot, store.snapshot);
}
