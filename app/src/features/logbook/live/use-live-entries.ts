import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { whenIdle } from '@/lib/when-idle';
import { addArrivals, idsOf, notListed, withArrivals } from './arrivals';
import { catchUpSince } from './catch-up-since';
import type { EntryRows, KeptEntry, LiveEntries } from '../types';

const NONE: readonly KeptEntry[] = [];

export interface LiveEntriesInput {
  /** Where inserts come from while the page is open; null listens to nothing. */
  readonly source: LiveEntries | null;
  /** What this visit's reads show (useLogEntries). */
  readonly base: EntryRows;
  /** Whether a read of this visit has settled: a catch-up before then would race the read itself. */
  readonly baseReady: boolean;
  /** The entries created at or after `since` (every entry without it); rejects with the client's error. */
  readonly readNewer: (since: string | undefined) => Promise<readonly KeptEntry[]>;
  /** Entries shown for the first time, live or by a catch-up read: to announce. */
  readonly onArrived: (entries: readonly KeptEntry[]) => void;
  /**
   * Keeps the arrivals on the device. Called only when the page holds every entry since its read (caught up after
   * the latest subscription), so the copy never gets an entry newer than a gap; `baseNewest` is the `created_at`
   * of the newest entry the reads show.
   */
  readonly keep: (arrivals: readonly KeptEntry[], baseNewest: string | undefined) => void;
}

/**
 * The logbook as it grows while the page is open: `base` with the entries that arrived since (live, or read after
 * each subscription to fill what the socket missed) on top, each id once (a read's row wins, so a reload after a
 * sign folds them in). Every 'SUBSCRIBED' (the first, and again after each reconnect) is followed by a read of the
 * rows from a minute before the newest shown, once `base` is ready: events are not replayed, so whatever was
 * inserted between the first read and the subscription, or while the socket was down, comes from that read.
 */
export function useLiveEntries({ source, base, baseReady, readNewer, onArrived, keep }: LiveEntriesInput): EntryRows {
  const baseIds = useMemo(() => idsOf(base), [base]);
  const [arrived, setArrived] = useState<readonly KeptEntry[]>(NONE);
  // Events and reads settle between renders: they read and write the latest values here, not a render's.
  const latest = useRef({ base, baseIds, baseReady, arrived, readNewer, onArrived, keep });
  useLayoutEffect(() => {
    latest.current = { ...latest.current, base, baseIds, baseReady, readNewer, onArrived, keep };
  });
  /** A subscription not yet followed by its catch-up read (waiting for `base`, or the read in flight). */
  const behind = useRef(false);
  const catchUpRequest = useRef(0);
  const mounted = useRef(true);

  const receive = useCallback((entries: readonly KeptEntry[], caughtUp: boolean) => {
    const now = latest.current;
    const before = new Set(now.arrived.map((entry) => entry.id));
    // Rows the reads already show stay theirs (a catch-up read's minute of overlap is mostly such rows).
    const unread = entries.filter((entry) => !now.baseIds.has(entry.id));
    const fresh = unread.filter((entry) => !before.has(entry.id));
    if (fresh.length === 0 && !caughtUp) return;
    const next = addArrivals(now.arrived, unread);
    now.arrived = next;
    setArrived(next);
    if (fresh.length > 0) now.onArrived(fresh);
    if (!behind.current) {
      const unlisted = caughtUp ? notListed(next, now.baseIds) : fresh;
      if (unlisted.length > 0) now.keep(unlisted, now.base.length > 0 ? now.base.createdAt(0) : undefined);
    }
  }, []);

  const catchUp = useCallback(() => {
    behind.current = true;
    const now = latest.current;
    if (!now.baseReady) return;
    const request = ++catchUpRequest.current;
    now.readNewer(catchUpSince(now.arrived, now.base)).then(
      (rows) => {
        if (!mounted.current || request !== catchUpRequest.current) return;
        behind.current = false;
        receive(rows, true);
      },
      (error: unknown) => {
        // Left behind: the next subscription (the client rejoins after any drop) or a reload reads again. A warning,
        // not an error: the page's console errors stay the spec's two ("Error fetching logs:", "Error inserting log:").
        if (mounted.current && request === catchUpRequest.current) console.warn('Could not catch up on the logbook:', error);
      },
    );
  }, [receive]);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  // Listening starts once a read of this visit has settled, and stays on: the first entries are painted before the
  // live client (its own wasm, api/live-code.ts) is downloaded, so a first visit waits for none of it.
  const [readSettled, setReadSettled] = useState(baseReady);
  if (baseReady && !readSettled) setReadSettled(true);
  // It starts once the browser is idle after that: the list just read is painted before the live client's download,
  // compile and catch-up read compete with it.
  useEffect(() => {
    if (source === null || !readSettled) return;
    let stop: (() => void) | undefined;
    let stopped = false;
    whenIdle(() => {
      if (stopped) return;
      stop = source.listen({
        onEntry: (entry) => receive([entry], false),
        onStatus: (status) => {
          if (status === 'SUBSCRIBED') catchUp();
        },
      });
    });
    return () => {
      stopped = true;
      stop?.();
    };
  }, [source, readSettled, receive, catchUp]);

  // A subscription that came before a read settled (a reload's) catches up once it has.
  useEffect(() => {
    if (baseReady && behind.current) catchUp();
  }, [baseReady, catchUp]);

  // Arrivals a newer read now holds are the read's: dropped here, so they are not kept twice.
  useEffect(() => {
    const now = latest.current;
    const still = notListed(now.arrived, baseIds);
    if (still.length === now.arrived.length) return;
    now.arrived = still;
    setArrived(still);
  }, [baseIds]);

  return useMemo(() => withArrivals(arrived, base, baseIds), [arrived, base, baseIds]);
}
