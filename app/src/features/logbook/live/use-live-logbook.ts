import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { openDeviceCopy } from '../device-copy/copy-store';
import { ArrivalKeeper } from './arrival-keeper';
import type { OwnSigns } from './own-signs';
import { useLiveEntries } from './use-live-entries';
import type { EntryRows, KeptEntry, LiveEntries } from '../types';

export interface LiveLogbookInput {
  readonly source: LiveEntries | null;
  readonly readNewer: (since: string | undefined) => Promise<readonly KeptEntry[]>;
  /** What this visit's reads show, and whether the first of them has settled. */
  readonly base: EntryRows;
  readonly baseReady: boolean;
  /** Called when entries signed elsewhere arrive: what the live region said before is now out of date. */
  readonly onAnnounce: () => void;
  /** The signs this page sent (the form's owner remembers them): their arrival is shown but not announced. */
  readonly ownSigns: OwnSigns;
  /**
   * Changes whenever the live region starts saying something else (a sign's outcome): the arrivals are counted from
   * 0 again. A number the form's owner bumps, so that owner does not render again with every arrival.
   */
  readonly quietSince: number;
}

export interface LiveLogbook {
  /** The list to show: the reads' entries with those that arrived since on top. */
  readonly entries: EntryRows;
  /** Entries signed elsewhere since `quietSince` last changed: what the live region announces while above 0. */
  readonly arrived: number;
}

/**
 * The logbook kept up to date while it is open (useLiveEntries), with what the page does around it: counting the
 * entries signed elsewhere for the live region (not this page's own signs), and keeping arrivals on the device.
 */
export function useLiveLogbook({ source, readNewer, base, baseReady, onAnnounce, ownSigns, quietSince }: LiveLogbookInput): LiveLogbook {
  // The count and the `quietSince` it was counted since: a count from before the latest change reads as 0.
  const [count, setCount] = useState({ since: quietSince, arrived: 0 });
  const since = useRef(quietSince);
  useLayoutEffect(() => {
    since.current = quietSince;
  });
  const keeper = useMemo(() => new ArrivalKeeper(openDeviceCopy), []);
  useEffect(() => {
    // A page being left may not get another turn of its timers: what arrived is written now.
    const onHidden = () => {
      if (document.visibilityState === 'hidden') void keeper.flush();
    };
    document.addEventListener('visibilitychange', onHidden);
    return () => {
      document.removeEventListener('visibilitychange', onHidden);
      keeper.dispose();
    };
  }, [keeper]);

  const onArrived = useCallback(
    (entries: readonly KeptEntry[]) => {
      const others = entries.filter((entry) => !ownSigns.claim(entry)).length;
      if (others === 0) return;
      onAnnounce();
      const now = since.current;
      setCount((before) => ({ since: now, arrived: (before.since === now ? before.arrived : 0) + others }));
    },
    [ownSigns, onAnnounce],
  );
  const entries = useLiveEntries({ source, base, baseReady, readNewer, onArrived, keep: keeper.add });
  return { entries, arrived: count.since === quietSince ? count.arrived : 0 };
}
