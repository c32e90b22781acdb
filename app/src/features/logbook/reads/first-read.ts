import { planRead, type ReadPlan } from '../device-copy/catch-up';
import { headIsWhole } from '../device-copy/copy-layout';
import { openDeviceCopy, type DeviceCopy } from '../device-copy/copy-store';
import { takeEarlyRead } from '../device-copy/early-read';
import { startEntryPages, type EntryPages } from '../api/entry-pages';
import type { KeptCopy } from '../types';

/** What the visit found on the device and the read it chose for it. */
export interface VisitPlan {
  readonly kept: KeptCopy | null;
  readonly plan: ReadPlan;
}

/** A visit's first read: the device's copy, then every entry or only the newer ones (device-copy/catch-up.ts). */
export interface FirstRead {
  /** The device's copy, null where the platform keeps none. */
  readonly copy: Promise<DeviceCopy | null>;
  /** Never rejects: a copy that cannot be read counts as none, and the read is whole. */
  readonly plan: Promise<VisitPlan>;
  /**
   * The plan once it is known (at once without IndexedDB): its pages can be taken over, and the copy shown, without
   * waiting a turn.
   */
  readonly settled?: VisitPlan;
  readonly pages: EntryPages;
}

/** Reads the device's copy and starts the read it calls for, at `now` (ms since the epoch). */
export function startFirstRead(now: number = Date.now()): FirstRead {
  // Without IndexedDB there is no copy to wait for: the whole read starts at once.
  if (typeof indexedDB === 'undefined') {
    const settled: VisitPlan = { kept: null, plan: { kind: 'whole' } };
    return { copy: Promise.resolve(null), plan: Promise.resolve(settled), settled, pages: startEntryPages() };
  }
  const copy = openDeviceCopy();
  const readWhole = () => copy.then((opened) => opened?.read() ?? null).catch(() => null);
  // The copy's newest entries, if they were read before anything else had loaded (first-paint/start-up.ts): not read
  // a second time, and the whole copy (which the read's plan and the list need) read only when it holds more.
  const early = takeEarlyRead();
  const kept = early === undefined ? readWhole() : early.then((head) => (head === null || headIsWhole(head) ? head : readWhole()));
  const plan = kept.then((found) => ({ kept: found, plan: planRead(found, now) }));
  const pages = startEntryPages(plan.then(({ plan: read }) => (read.kind === 'newer' ? read.since : undefined)));
  const visit: { -readonly [K in keyof FirstRead]: FirstRead[K] } = { copy, plan, pages };
  // Before anyone else hears of the plan: whoever is told of it finds it settled.
  void plan.then((known) => (visit.settled = known));
  return visit;
}
