import { useCallback, useEffect, useRef, useState } from 'react';
import { openDeviceCopy, type DeviceCopy } from '../device-copy/copy-store';
import { plainRows } from '../device-copy/plain-rows';
import { useEntryListMemory } from './entry-list-memory';
import { startEntryPages } from './entry-pages';
import type { EntryList, EntryRows, Shown } from './entry-types';
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

/** How the first read of this visit stands. */
export type ReadState = 'loading' | 'loaded' | 'failed';

export interface LogEntriesState {
  /**
   * What is shown: the entries read so far, newest first; until the first page arrives, the entries kept on this
   * device (empty without them).
   */
  readonly entries: EntryRows;
  /** Whether `entries` are the device's copy (no page of this visit has arrived yet). */
  readonly fromDevice: boolean;
  /** When the device's copy was last brought up to date (ms since the epoch), or null without one. */
  readonly updatedAt: number | null;
  readonly read: ReadState;
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
  const [kept, setKept] = useState<EntryRows | null>(null);
  const [updatedAt, setUpdatedAt] = useState<number | null>(null);
  const [read, setRead] = useState<ReadState>('loading');
  const copy = useRef<Promise<DeviceCopy | null> | null>(null);
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
          if (!current()) return release(all);
          display({ rows: all, lists: [all] });
          setRead('loaded');
          keepOnDevice(copy.current, all, (at) => {
            if (mounted.current) setUpdatedAt(at);
          });
        },
        (error: unknown) => {
          console.error('Error fetching logs:', error);
          if (current()) setRead((before) => (before === 'loading' ? 'failed' : before));
        },
      );
    },
    [latest, show, release],
  );

  const reload = useCallback(() => load(false), [load]);

  useEffect(() => {
    mounted.current = true;
    copy.current ??= openDeviceCopy();
    void copy.current
      .then((opened) => opened?.read())
      .then((found) => {
        if (!mounted.current || !found) return;
        setKept(plainRows(found.entries));
        setUpdatedAt((at) => at ?? found.updatedAt);
      })
      .catch(() => undefined);
    load(true);
    return () => {
      mounted.current = false;
    };
  }, [load]);

  return {
    entries: shown?.rows ?? kept ?? NO_ENTRIES,
    fromDevice: shown === null && kept !== null,
    updatedAt,
    read,
    reload,
  };
}

/**
 * Replaces the device's copy with a whole read, in the background; `onKept` gets the time it was brought up to
 * date. A full quota or a closed database keeps the page on memory alone.
 */
function keepOnDevice(copy: Promise<DeviceCopy | null> | null, all: EntryList, onKept: (updatedAt: number) => void): void {
  if (copy === null) return;
  const entries = all.toArray();
  const updatedAt = Date.now();
  void copy
    .then(async (opened) => {
      if (opened === null) return;
      await opened.replace(entries, updatedAt);
      onKept(updatedAt);
    })
    .catch(() => undefined);
}
