import { useEffect, useLayoutEffect, useState, useSyncExternalStore } from 'react';
import { startEntryPages } from '../api/entry-pages';
import { liveChannel } from '../api/live-channel';
import { clientChanges } from '../api/read-changes';
import { readNewer } from '../api/read-newer';
import { catchUpChanges } from '../device-copy/changes-catch-up';
import { openDeviceCopy } from '../device-copy/copy-store';
import { earlyReadFound } from '../device-copy/early-read';
import { ArrivalKeeper } from '../live/arrival-keeper';
import { startFirstRead } from './first-read';
import { peekPrefetched, takePrefetched } from './prefetch-entries';
import { VisitReads, type LogEntries } from './visit-reads';

/** The page's reads: from the client, the device's copy and the live channel, taking over a read started early. */
function pageReads(): VisitReads {
  return new VisitReads({
    firstRead: () => takePrefetched() ?? startFirstRead(),
    wholeRead: () => startEntryPages(),
    openCopy: openDeviceCopy,
    // Found by the read the start-up began, or by the early read it will plan from (only the copy's newest entries when
    // it holds more: the whole copy follows with the plan).
    keptBefore: peekPrefetched()?.settled?.kept ?? earlyReadFound(),
    live: { source: liveChannel, readNewer, keeper: new ArrivalKeeper(openDeviceCopy) },
    changes: (known) => catchUpChanges(clientChanges, known),
  });
}

/** The visit's reads while the logbook is mounted: opened when it mounts, closed when it unmounts. */
export function useVisitReads(): VisitReads {
  const [reads] = useState(pageReads);
  useEffect(() => {
    reads.open();
    return () => reads.close();
  }, [reads]);
  return reads;
}

/** What the reads show, as React renders it; each commit tells them, so they free the lists no longer shown. */
export function useLogEntries(reads: VisitReads): LogEntries {
  // The same snapshot on the server: the build prerenders the logbook before anything is read.
  const shown = useSyncExternalStore(reads.subscribe, reads.snapshot, reads.snapshot);
  useLayoutEffect(() => reads.rendered(shown), [reads, shown]);
  return shown;
}
