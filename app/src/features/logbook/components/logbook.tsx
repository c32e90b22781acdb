import { useCallback, useEffect, useMemo, useState } from 'react';
import { LOGBOOK_TITLE } from '@/content/logbook-title';
import { useSignLogbook, type NewEntry } from '../api/sign-logbook';
import { liveChannel } from '../api/live-channel';
import { readNewer } from '../api/read-newer';
import { useLogEntries } from '../api/use-log-entries';
import { openDeviceCopy } from '../device-copy/copy-store';
import type { KeptEntry } from '../device-copy/newest-first';
import { ArrivalKeeper } from '../live/arrival-keeper';
import { OwnSigns } from '../live/own-signs';
import { useLiveEntries } from '../live/use-live-entries';
import type { OutboxDeliveryError } from '../outbox/deliver';
import type { OutboxItem } from '../outbox/plain-request';
import { useOutbox } from '../outbox/use-outbox';
import { LiveRegion } from '../status/live-region';
import { STATUS } from '../status/messages';
import { notSignedReason } from '../status/reason';
import { useListStatus } from '../status/use-list-status';
import { EntryList } from './entry-list';
import { LastUpdated } from './last-updated';
import { PendingSigns } from './pending-signs';
import { SignForm, type SignFields } from './sign-form';
import './logbook.css';

const EMPTY: SignFields = { name: '', message: '' };

const same = (a: NewEntry, b: NewEntry) => a.name === b.name && a.message === b.message;

/**
 * The open logbook: the form to sign it, the signs waiting on this device, and every entry, newest first (the
 * device's copy until the first page of this visit arrives), with one polite live region saying how things stand.
 */
export function Logbook() {
  const { entries: readEntries, fromDevice, updatedAt, read, reload } = useLogEntries();
  const [fields, setFields] = useState<SignFields>(EMPTY);
  const [signStatus, setStatus] = useState('');
  // Entries signed elsewhere since the live region last said anything else.
  const [arrivedCount, setArrivedCount] = useState(0);
  const setSignStatus = useCallback((message: string) => {
    setStatus(message);
    setArrivedCount(0);
  }, []);

  const ownSigns = useMemo(() => new OwnSigns(), []);
  const keeper = useMemo(() => new ArrivalKeeper(openDeviceCopy), []);
  useEffect(() => () => keeper.dispose(), [keeper]);
  const onArrived = useCallback(
    (arrived: readonly KeptEntry[]) => {
      const others = arrived.filter((entry) => !ownSigns.claim(entry)).length;
      if (others === 0) return;
      setStatus('');
      setArrivedCount((count) => count + others);
    },
    [ownSigns],
  );
  const entries = useLiveEntries({
    source: liveChannel,
    base: readEntries,
    baseReady: read !== 'loading',
    readNewer,
    onArrived,
    keep: keeper.add,
  });

  const onDelivered = useCallback(
    (items: readonly OutboxItem[]) => {
      for (const item of items) ownSigns.expect(item);
      // The fields keep a waiting sign's text until it is stored.
      setFields((now) => (items.some((item) => same(item, now)) ? EMPTY : now));
      setSignStatus(STATUS.sent);
      reload();
    },
    [reload, ownSigns, setSignStatus],
  );
  const onRefused = useCallback(
    (error: OutboxDeliveryError) => {
      console.error('Error inserting log:', error);
      setSignStatus(STATUS.notSigned(notSignedReason(error)));
    },
    [setSignStatus],
  );
  const outbox = useOutbox({ onDelivered, onRefused, onChanged: reload });

  const { sign, pending } = useSignLogbook({
    keep: outbox.save,
    forget: outbox.forget,
    pendingKey: (entry) => outbox.pending.find((item) => same(item, entry))?.key,
  });

  async function handleSign(entry: SignFields) {
    setSignStatus(STATUS.signing);
    ownSigns.expect(entry);
    const result = await sign(entry);
    if (result.status === 'signed') {
      setFields((now) => (same(now, entry) ? EMPTY : now));
      setSignStatus(STATUS.signed);
      reload();
    } else if (result.status === 'saved') {
      setSignStatus(STATUS.saved);
    } else if (result.status === 'failed') {
      setSignStatus(STATUS.notSigned(notSignedReason(result.error)));
    }
  }

  const listStatus = useListStatus({ read, count: entries.length, fromDevice });

  return (
    <main className="logbook">
      <h1>{LOGBOOK_TITLE}</h1>
      <SignForm fields={fields} onChange={setFields} onSign={(entry) => void handleSign(entry)} pending={pending} />
      <LiveRegion message={signStatus || (arrivedCount > 0 ? STATUS.arrived(arrivedCount) : listStatus)} />
      <section className="logbook-entries" aria-labelledby="logbook-entries-heading">
        <h2 id="logbook-entries-heading">Logbook Entries</h2>
        <LastUpdated at={updatedAt} />
        <PendingSigns items={outbox.pending} />
        {entries.length === 0 && read === 'loading' ? <p className="list-note">{STATUS.loading}</p> : null}
        <EntryList entries={entries} />
      </section>
    </main>
  );
}
