import { useCallback, useEffect, useMemo, useState } from 'react';
import type { EntryRows } from '../api/entry-types';
import { openDeviceCopy } from '../device-copy/copy-store';
import type { KeptEntry } from '../device-copy/newest-first';
import { ArrivalKeeper } from './arrival-keeper';
import type { LiveEntries } from './live-entries';
import { OwnSigns, type SignText } from './own-signs';
import { useLiveEntries } from './use-live-entries';

export interface LiveLogbookInput {
  readonly source: LiveEntries | null;
  readonly readNewer: (since: string | undefined) => Promise<readonly KeptEntry[]>;
  /** What this visit's reads show, and whether the first of them has settled. */
  readonly base: EntryRows;
  readonly baseReady: boolean;
  /** Called when entries signed elsewhere arrive: what the live region said before is now out of date. */
  readonly onAnnounce: () => void;
}

export interface LiveLogbook {
  /** The list to show: the reads' entries with those that arrived since on top. */
  readonly entries: EntryRows;
  /** Entries signed elsewhere since `quiet()`: what the live region announces while above 0. */
  readonly arrived: number;
  /** Remembers a sign this page is about to send, so its own arrival is not announced. */
  readonly expectOwn: (sign: SignText) => void;
  /** Starts counting arrivals from 0 again (the live region says something else now). */
  readonly quiet: () => void;
}

/**
 * The logbook kept up to date while it is open (useLiveEntries), with what the page does around it: counting the
 * entries signed elsewhere for the live region (not this page's own signs), and keeping arrivals on the device.
 */
export function useLiveLogbook({ source, readNewer, base, baseReady, onAnnounce }: LiveLogbookInput): LiveLogbook {
  const [arrived, setArrived] = useState(0);
  const ownSigns = useMemo(() => new OwnSigns(), []);
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
      setArrived((count) => count + others);
    },
    [ownSigns, onAnnounce],
  );
  const entries = useLiveEntries({ source, base, baseReady, readNewer, onArrived, keep: keeper.add });
  const expectOwn = useCallback((sign: SignText) => ownSigns.expect(sign), [ownSigns]);
  const quiet = useCallback(() => setArrived(0), []);
  return { entries, arrived, expectOwn, quiet };
}
