import { useArrivalCount } from '../live/use-arrival-count';
import type { OwnSigns } from '../live/own-signs';
import type { OutboxItem } from '../outbox/plain-request';
import { useLogEntries } from '../reads/use-log-entries';
import type { VisitReads } from '../reads/visit-reads';
import { LiveRegion } from '../status/live-region';
import { STATUS } from '../status/messages';
import { useListStatus } from '../status/use-list-status';
import { EntryList } from './entry-list';
import { LastUpdated } from './last-updated';
import { PendingSigns } from './pending-signs';

interface LogbookEntriesProps {
  /** The visit's reads: the entries they show (the device's copy until the first page arrives), and how they stand. */
  readonly reads: VisitReads;
  /** A sign's outcome to announce; it wins over what the list has to say. */
  readonly signStatus: string;
  /** Called when entries signed elsewhere arrive (the sign's outcome is out of date). */
  readonly onAnnounce: () => void;
  readonly ownSigns: OwnSigns;
  /** Bumped whenever `signStatus` is set: the arrivals are counted from 0 again. */
  readonly quietSince: number;
  /** The signs waiting on this device, shown above the list. */
  readonly pending: readonly OutboxItem[];
}

/**
 * The live region and the logbook's entries, kept up to date while the page is open. A component of its own, so an
 * arrival renders this part only, not the form and the hooks above it: in a page left open, each function an
 * arrival runs grows hot over the minutes and the browser compiles it again, a tier at a time, and keeps that code.
 */
export function LogbookEntries({ reads, signStatus, onAnnounce, ownSigns, quietSince, pending }: LogbookEntriesProps) {
  const { entries, read, fromDevice, updatedAt } = useLogEntries(reads);
  const arrived = useArrivalCount(reads, { ownSigns, onAnnounce, quietSince });
  const readStatus = useListStatus({ read, count: entries.length, fromDevice });
  const listStatus = arrived > 0 ? STATUS.arrived(arrived) : readStatus;
  return (
    <>
      <LiveRegion message={signStatus || listStatus} />
      <section className="logbook-entries" aria-labelledby="logbook-entries-heading">
        <h2 id="logbook-entries-heading">Logbook Entries</h2>
        <LastUpdated at={updatedAt} />
        <PendingSigns items={pending} />
        {/* Nothing arrives live before a read has settled: while loading, these are the reads' own entries. */}
        {entries.length === 0 && read === 'loading' ? <p className="list-note">{STATUS.loading}</p> : null}
        <EntryList entries={entries} />
      </section>
    </>
  );
}
