import type { ReactNode } from 'react';
import { liveChannel } from '../api/live-channel';
import { readNewer } from '../api/read-newer';
import type { OwnSigns } from '../live/own-signs';
import { useLiveLogbook } from '../live/use-live-logbook';
import { LiveRegion } from '../status/live-region';
import { STATUS } from '../status/messages';
import { useListStatus } from '../status/use-list-status';
import { EntryList } from './entry-list';
import type { EntryRows, ReadState } from '../types';

interface LogbookEntriesProps {
  /** What this visit's reads show (the device's copy until the first page arrives), and how the read stands. */
  readonly base: EntryRows;
  readonly read: ReadState;
  readonly fromDevice: boolean;
  /** A sign's outcome to announce; it wins over what the list has to say. */
  readonly signStatus: string;
  /** Called when entries signed elsewhere arrive (the sign's outcome is out of date). */
  readonly onAnnounce: () => void;
  readonly ownSigns: OwnSigns;
  /** Bumped whenever `signStatus` is set: the arrivals are counted from 0 again. */
  readonly quietSince: number;
  /** What the section shows above the list (when the copy was updated, the signs waiting on this device). */
  readonly notes: ReactNode;
}

/**
 * The live region and the logbook's entries, kept up to date while the page is open. A component of its own, so an
 * arrival renders this part only, not the form and the hooks above it: in a page left open, each function an
 * arrival runs grows hot over the minutes and the browser compiles it again, a tier at a time, and keeps that code.
 */
export function LogbookEntries({ base, read, fromDevice, signStatus, onAnnounce, ownSigns, quietSince, notes }: LogbookEntriesProps) {
  const live = useLiveLogbook({
    source: liveChannel,
    readNewer,
    base,
    baseReady: read !== 'loading',
    onAnnounce,
    ownSigns,
    quietSince,
  });
  const readStatus = useListStatus({ read, count: live.entries.length, fromDevice });
  const listStatus = live.arrived > 0 ? STATUS.arrived(live.arrived) : readStatus;
  return (
    <>
      <LiveRegion message={signStatus || listStatus} />
      <section className="logbook-entries" aria-labelledby="logbook-entries-heading">
        <h2 id="logbook-entries-heading">Logbook Entries</h2>
        {notes}
        {base.length === 0 && read === 'loading' ? <p className="list-note">{STATUS.loading}</p> : null}
        <EntryList entries={live.entries} />
      </section>
    </>
  );
}
