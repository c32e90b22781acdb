import { useCallback, useEffect, useRef, useState } from 'react';
import { whenIdle } from '@/lib/when-idle';
import { mergeNewer } from '../device-copy/catch-up';
import { keepCopy, openDeviceCopy, type DeviceCopy } from '../device-copy/copy-store';
import { earlyReadFound } from '../device-copy/early-read';
import { plainRows } from '../device-copy/plain-rows';
import { isClientLoadFailure } from '../api/client-code';
import { useEntryListMemory, type Shown } from './entry-list-memory';
import { startEntryPages, type EntryPages } from '../api/entry-pages';
import { peekPrefetched, takePrefetched } from './prefetch-entries';
import { startFirstRead, type VisitPlan, type FirstRead } from './first-read';
import type { EntryList, EntryRows, KeptCopy, KeptEntry, ReadState } from '../types';

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

/** The device's copy a read started before the first render has already found, as the list reads it. */
function keptBefore(visit: FirstRead | undefined): EntryRows | null {
  const found = keptFoundBefore(visit);
  return found ? plainRows(found.entries) : null;
}

/**
 * The copy found before the first render: by the prefetched read, or by main.tsx's early read it will plan from (only
 * the copy's newest entries when it holds more: the whole copy follows with the plan).
 */
function keptFoundBefore(visit: FirstRead | undefined): KeptCopy | null | undefined {
  return visit?.settled?.kept ?? earlyReadFound();
}

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
 * Shows the entries kept on this device at once, then reads what the visit needs (first-read.ts): with a copy
 * reconciled within a day, only the entries from a minute before its newest, merged into it by id; otherwise every
 * entry, in pages, each shown as it arrives, and kept as the new copy (entries removed meanwhile go away). A
 * `reload()` (after a sign) always reads every entry: it shows its fresh pages so far followed by the older part
 * of the list shown before (nothing shown disappears while it runs), and its whole list replaces both at the end.
 * A failed page is logged and leaves what is shown.
 */
export function useLogEntries(): LogEntriesState {
  const [shown, setShown] = useState<Shown | null>(null);
  const [caughtUp, setCaughtUp] = useState<EntryRows | null>(null);
  // A copy read before the first render (main.tsx starts the read, and may have painted it already) is shown by it.
  const [kept, setKept] = useState<EntryRows | null>(() => keptBefore(peekPrefetched()));
  const [updatedAt, setUpdatedAt] = useState<number | null>(() => keptFoundBefore(peekPrefetched())?.updatedAt ?? null);
  const [read, setRead] = useState<ReadState>('loading');
  const copy = useRef<Promise<DeviceCopy | null> | null>(null);
  const { latest, show, release } = useEntryListMemory(shown);
  const latestRequest = useRef(0);
  const mounted = useRef(false);
  /** Whether the list shown is the device's copy caught up by a newer-than read (until a whole read replaces it). */
  const caughtUpShown = useRef(false);

  const load = useCallback(
    (first: boolean) => {
      if (!mounted.current) return;
      const request = ++latestRequest.current;
      // A slower, older read must not overwrite a newer one, nor touch an unmounted component.
      const current = () => mounted.current && request === latestRequest.current;
      const failed = (error: unknown) => {
        // The client's code not loading is the page's failure, reported once by App.tsx in place of the logbook.
        if (!isClientLoadFailure(error)) console.error('Error fetching logs:', error);
        if (current()) setRead((before) => (before === 'loading' ? 'failed' : before));
      };
      const keepOnDevice = (entries: readonly KeptEntry[], times: { updatedAt: number; reconciledAt: number }) => {
        if (copy.current === null) return;
        void keepCopy(copy.current, entries, times).then((done) => {
          if (done && mounted.current) setUpdatedAt(times.updatedAt);
        });
      };

      const readWhole = (pages: EntryPages) => {
        // What a reload reads over: the list shown (or about to be) when it started, kept until the reload ends.
        const previous = latest.current?.rows;
        // A reload over the device's copy caught up (plain rows, not a client list to merge pages into) shows it
        // until the whole list has arrived, so the list never drops back to one page; the pages are freed then.
        const overCopy = !first && previous === undefined && caughtUpShown.current;
        const passed: EntryList[] = [];
        const display = (next: Shown) => {
          show(next);
          setShown(next);
        };
        pages.subscribe((soFar) => {
          if (!current()) return release(soFar);
          if (overCopy) return void passed.push(soFar);
          if (previous === undefined) return display({ rows: soFar, lists: [soFar] });
          const merged = soFar.withOlderFrom(previous);
          // `soFar` stays listed: the client may resolve to this very handle.
          display({ rows: merged, lists: [merged, soFar, previous] });
        });
        pages.done.then((all) => {
          if (!current()) {
            for (const list of passed) release(list);
            return release(all);
          }
          display({ rows: all, lists: [all] });
          for (const list of passed) if (list !== all) release(list);
          setRead('loaded');
          const now = Date.now();
          // Copying a long logbook out of wasm and into IndexedDB takes a while: the whole list is painted first.
          whenIdle(() => {
            if (current()) keepOnDevice(all.toArray(), { updatedAt: now, reconciledAt: now });
          });
        }, (error: unknown) => {
          for (const list of passed) release(list);
          failed(error);
        });
      };

      // Only the entries newer than the copy: shown merged into it once they have all arrived (usually one page).
      const readNewer = (pages: EntryPages, copied: KeptCopy) => {
        pages.done.then((newer) => {
          const merged = mergeNewer(copied.entries, newer.toArray());
          release(newer);
          if (!current()) return;
          caughtUpShown.current = true;
          setCaughtUp(plainRows(merged));
          setRead('loaded');
          keepOnDevice(merged, { updatedAt: Date.now(), reconciledAt: copied.reconciledAt });
        }, failed);
      };

      if (!first) {
        copy.current ??= openDeviceCopy();
        readWhole(startEntryPages());
        return;
      }
      const visit = takePrefetched() ?? startFirstRead();
      copy.current = visit.copy;
      const start = ({ kept: found, plan }: VisitPlan) => {
        if (found !== null && mounted.current) {
          // Shown before the first render may be only the copy's newest entries (device-copy/early-read.ts).
          setKept((shown) => (shown !== null && shown.length >= found.entries.length ? shown : plainRows(found.entries)));
          setUpdatedAt((at) => at ?? found.updatedAt);
        }
        if (plan.kind === 'newer' && found !== null) readNewer(visit.pages, found);
        else readWhole(visit.pages);
      };
      if (visit.settled !== undefined) start(visit.settled);
      else void visit.plan.then(start);
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

  return {
    entries: shown?.rows ?? caughtUp ?? kept ?? NO_ENTRIES,
    fromDevice: shown === null && caughtUp === null && kept !== null,
    updatedAt,
    read,
    reload,
  };
}
