import { useCallback, useState } from 'react';
import { LOGBOOK_TITLE } from '@/content/logbook-title';
import { useSignLogbook, type NewEntry } from '../api/sign-logbook';
import { liveChannel } from '../api/live-channel';
import { readNewer } from '../api/read-newer';
import { useLogEntries } from '../api/use-log-entries';
import { useLiveLogbook } from '../live/use-live-logbook';
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
 * device's copy until the first page of this visit arrives) and those signed elsewhere since, as they arrive, with one
 * polite live region saying how things stand.
 */
export function Logbook() {
  const { entries: readEntries, fromDevice, updatedAt, read, reload } = useLogEntries();
  const [fields, setFields] = useState<SignFields>(EMPTY);
  const [signStatus, setStatus] = useState('');
  const clearStatus = useCallback(() => setStatus(''), []);
  const live = useLiveLogbook({
    source: liveChannel,
    readNewer,
    base: readEntries,
    baseReady: read !== 'loading',
    onAnnounce: clearStatus,
  });
  const { entries, quiet, expectOwn } = live;
  // The live region says what happened last: a sign's outcome, or the entries that arrived since.
  const setSignStatus = useCallback(
    (message: string) => {
      setStatus(message);
      quiet();
    },
    [quiet],
  );

  const onDelivered = useCallback(
    (items: readonly OutboxItem[]) => {
      for (const item of items) expectOwn(item);
      // The fields keep a waiting sign's text until it is stored.
      setFields((now) => (items.some((item) => same(item, now)) ? EMPTY : now));
      setSignStatus(STATUS.sent);
      reload();
    },
    [reload, expectOwn, setSignStatus],
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
    expectOwn(entry);
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
      <LiveRegion message={signStatus || (live.arrived > 0 ? STATUS.arrived(live.arrived) : listStatus)} />
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
