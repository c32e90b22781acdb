import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import type { EntryList, LogEntry } from 'geocache-client';
import { getClient } from './client';
import { withNewest } from './newest-first';

export type { EntryList, LogEntry };

/**
 * What the list reads: the entries, newest first, one field of one row at a time. An `EntryList`
 * keeps them in wasm memory, so a 100,000-entry logbook costs the page only the rows it shows.
 */
export type EntryRows = Pick<EntryList, 'length' | 'ids' | 'createdAt' | 'name' | 'message'>;

/** The list before the first load succeeds. Its readers are never called: it has no rows. */
const NO_ENTRIES: EntryRows = {
  length: 0,
  ids: () => new Float64Array(),
  createdAt: noRow,
  name: noRow,
  message: noRow,
};

function noRow(): never {
  throw new RangeError('index out of range: the list has 0 entries');
}

/** How many of the newest entries a load shows while the whole list is still on its way. */
export const FIRST_SCREEN = 30;

/** All entries, newest first (the client guarantees the order). Rejects with the client's error. */
export async function fetchLogEntries(): Promise<EntryList> {
  // Awaited inside the async function so a client-creation failure becomes a rejection too.
  return await getClient().listEntries();
}

/** The newest `count` entries, validated and ordered as the whole list is. */
export async function fetchNewestEntries(count: number): Promise<EntryList> {
  return await getClient().listNewestEntries(count);
}

/** The two requests of a load: the whole list and, to show sooner, its newest screenful. */
interface Load {
  readonly all: Promise<EntryList>;
  readonly newest: Promise<EntryList>;
}

function startLoad(): Load {
  // The small request goes first, so a server that answers in turn does not hold it behind the big one.
  const newest = fetchNewestEntries(FIRST_SCREEN);
  const load = { all: fetchLogEntries(), newest };
  // Until the hook takes them over, a rejection must not count as unhandled.
  load.all.catch(() => undefined);
  load.newest.catch(() => undefined);
  return load;
}

let prefetched: Load | undefined;

/**
 * Starts the first load as soon as the client is ready, before React has rendered the logbook; the
 * logbook's first load takes it over (an error then reaches the same console.error).
 */
export function prefetchLogEntries(): void {
  prefetched ??= startLoad();
}

/** The prefetched load, once: later loads fetch afresh. */
function takePrefetched(): Load | undefined {
  const taken = prefetched;
  prefetched = undefined;
  return taken;
}

export interface LogEntriesState {
  /** The last successfully loaded list; empty until a load succeeds. */
  readonly entries: EntryRows;
  /** Loads the list again; the newest request wins. */
  readonly reload: () => void;
}

/** What the list shows, and the client lists it reads from (freed once nothing shown reads them). */
interface Shown {
  readonly rows: EntryRows;
  readonly lists: readonly EntryList[];
}

const only = (list: EntryList): Shown => ({ rows: list, lists: [list] });

/**
 * Loads the entries on mount and on `reload()`; a failed load is logged and leaves the list as it
 * was. Each load also asks for the newest screenful, which usually answers first: the first load
 * shows it at once, and a reload (after a sign) puts it on top of the list already shown. Either is
 * replaced by the whole list when it arrives, and taken back if the whole list fails, whose error is
 * the only one logged.
 */
export function useLogEntries(): LogEntriesState {
  const [shown, setShown] = useState<Shown | null>(null);
  const committed = useCommittedAndFreeReplaced(shown);
  const latestRequest = useRef(0);
  const mounted = useRef(false);

  const load = useCallback(
    (first: boolean) => {
      if (!mounted.current) return;
      const request = ++latestRequest.current;
      // A slower, older response must not overwrite a newer one, nor touch an unmounted component.
      const current = () => mounted.current && request === latestRequest.current;
      const { all, newest } = (first ? takePrefetched() : undefined) ?? startLoad();
      let allSettled = false;
      let before: Shown | null | undefined;
      newest.then(
        (loaded) => {
          const base = committed.current;
          const rows = base ? withNewest(loaded, base.rows) : loaded;
          if (allSettled || !current() || !rows) {
            // Its wasm memory is given back at once.
            loaded.free();
            return;
          }
          before = base;
          setShown({ rows, lists: [loaded, ...(base?.lists ?? [])] });
        },
        // Only the whole list's outcome is reported.
        () => undefined,
      );
      all.then(
        (loaded) => {
          allSettled = true;
          if (current()) setShown(only(loaded));
          else loaded.free();
        },
        (error: unknown) => {
          allSettled = true;
          console.error('Error fetching logs:', error);
          if (before !== undefined && current()) setShown(before);
        },
      );
    },
    [committed],
  );

  const reload = useCallback(() => load(false), [load]);

  useEffect(() => {
    mounted.current = true;
    load(true);
    return () => {
      mounted.current = false;
    };
  }, [load]);

  return { entries: shown?.rows ?? NO_ENTRIES, reload };
}

/**
 * The last committed `Shown` (what a reload builds on), and freeing: a client list's wasm memory is
 * given back once the committed `Shown` no longer reads from it (the last one is left to garbage
 * collection). Runs after the commit, so nothing renders a freed list, and it is safe under
 * StrictMode's repeated effects.
 */
function useCommittedAndFreeReplaced(shown: Shown | null): RefObject<Shown | null> {
  const committed = useRef<Shown | null>(null);
  useEffect(() => {
    const replaced = committed.current;
    committed.current = shown;
    for (const list of replaced?.lists ?? []) {
      if (!shown?.lists.includes(list)) list.free();
    }
  }, [shown]);
  return committed;
}
