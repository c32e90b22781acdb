import { useCallback, useLayoutEffect, useRef, type RefObject } from 'react';
import type { EntryList } from '../types';

/** What the list shows, and every client list to keep while it is shown or about to be (`rows` included). */
export interface Shown {
  readonly rows: EntryList;
  readonly lists: readonly EntryList[];
}

export interface EntryListMemory {
  /** The last `Shown` handed to `show`: what is on screen, or about to be. */
  readonly latest: RefObject<Shown | null>;
  /** Records the next `Shown` (right before it is set as state), so its lists are kept until it is replaced. */
  readonly show: (next: Shown) => void;
  /** Takes a list the client handed over that will not be shown: freed at once, unless something shown reads it. */
  readonly release: (list: EntryList) => void;
}

/**
 * Gives a client list's wasm memory back once nothing shown, or about to be, reads it. Runs when a `Shown` is
 * committed (a layout effect, so the check never sees a stale screen) and when a list is released, so a `Shown`
 * replaced before it was ever rendered is freed too. The last one shown is left to garbage collection. Freeing is
 * idempotent: StrictMode's repeated effects free nothing twice.
 */
export function useEntryListMemory(committed: Shown | null): EntryListMemory {
  const owned = useRef(new Set<EntryList>());
  // The client may hand the same handle over twice (its last page and its result): it is freed once.
  const freed = useRef(new WeakSet<EntryList>());
  const onScreen = useRef<Shown | null>(null);
  const latest = useRef<Shown | null>(null);

  const sweep = useCallback(() => {
    for (const list of owned.current) {
      if (onScreen.current?.lists.includes(list) || latest.current?.lists.includes(list)) continue;
      owned.current.delete(list);
      freed.current.add(list);
      list.free();
    }
  }, []);

  useLayoutEffect(() => {
    onScreen.current = committed;
    sweep();
  }, [committed, sweep]);

  const show = useCallback((next: Shown) => {
    for (const list of next.lists) owned.current.add(list);
    latest.current = next;
  }, []);

  const release = useCallback(
    (list: EntryList) => {
      if (freed.current.has(list)) return;
      owned.current.add(list);
      sweep();
    },
    [sweep],
  );

  return { latest, show, release };
}
