import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { ArrivalListener } from './live-arrivals';
import type { OwnSigns } from './own-signs';

/** Where arrivals are heard (VisitReads). */
export interface Arrivals {
  readonly onArrived: (listener: ArrivalListener) => () => void;
}

export interface ArrivalCountInput {
  /** The signs this page sent (the form's owner remembers them): their arrival is shown but not announced. */
  readonly ownSigns: OwnSigns;
  /** Called when entries signed elsewhere arrive: what the live region said before is now out of date. */
  readonly onAnnounce: () => void;
  /**
   * Changes whenever the live region starts saying something else (a sign's outcome): the arrivals are counted from
   * 0 again. A number the form's owner bumps, so that owner does not render again with every arrival.
   */
  readonly quietSince: number;
}

/** Entries signed elsewhere since `quietSince` last changed: what the live region announces while above 0. */
export function useArrivalCount(arrivals: Arrivals, { ownSigns, onAnnounce, quietSince }: ArrivalCountInput): number {
  // The count and the `quietSince` it was counted since: a count from before the latest change reads as 0.
  const [count, setCount] = useState({ since: quietSince, arrived: 0 });
  const since = useRef(quietSince);
  useLayoutEffect(() => {
    since.current = quietSince;
  });
  useEffect(
    () =>
      arrivals.onArrived((entries) => {
        const others = entries.filter((entry) => !ownSigns.claim(entry)).length;
        if (others === 0) return;
        onAnnounce();
        const now = since.current;
        setCount((before) => ({ since: now, arrived: (before.since === now ? before.arrived : 0) + others }));
      }),
    [arrivals, ownSigns, onAnnounce],
  );
  return count.since === quietSince ? count.arrived : 0;
}
