import { useCallback, useEffect, useRef, useState } from 'react';
import { useEntryListMemory } from './entry-list-memory';
import { startEntryPages } from './entry-pages';
import type { EntryRows, Shown } from './entry-types';
import { takePrefetched } from './prefetch-entries';

/** The list before the first page arrives. Its readers are never called: it has no rows. */
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

export interface LogEntriesState {
  /** What is shown: the entries read so far, newest first; empty until the first page arrives. */
  readonly entries: EntryRows;
  /** Reads the list again; the newest read wins. */
  readonly reload: () => void;
}

/**
 * Reads every entry on mount and on `reload()`, in pages, and shows each page as it arrives, so the first
 * screen appears with the first page and the list grows as older pages come in. A reload (after a sign) shows
 * its fresh pages so far followed by the older part of the list shown before (nothing shown disappears while it
 * runs), and its whole list replaces both at the end, so entries removed meanwhile go away. A failed page is
 * logged and leaves what is shown.
 */
export function useLogEntries(): LogEntriesState {
  const [shown, setShown] = useState<Shown | null>(null);
  const { latest, show, release } = useEntryListMemory(shown);
  const latestRequest = useRef(0);
  const mounted = useRef(false);

  const load = useCallback(
    (first: boolean) => {
      if (!mounted.current) return;
      const request = ++latestRequest.current;
      // A slower, older read must not overwrite a newer one, nor touch an unmounted component.
      const current = () => mounted.current && request === latestRequest.current;
      const pages = (first ? takePrefetched() : undefined) ?? startEntryPages();
      // What a reload reads over: the list shown (or about to be) when it started, kept until the reload ends.
      const previous = latest.current?.rows;
      const display = (next: Shown) => {
        show(next);
        setShown(next);
      };
      pages.subscribe((soFar) => {
        if (!current()) return release(soFar);
        if (previous === undefined) return display({ rows: soFar, lists: [soFar] });
        const merged = soFar.withOlderFrom(previous);
        // `soFar` stays listed: the client may resolve to this very handle.
        display({ rows: merged, lists: [merged, soFar, previous] });
      });
      pages.done.then(
        (all) => {
          if (current()) display({ rows: all, lists: [all] });
          else release(all);
        },
        (error: unknown) => {
          console.error('Error fetching logs:', error);
        },
      );
    },
    [latest, show, release],
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
