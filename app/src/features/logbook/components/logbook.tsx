import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { listenForAnnouncements } from '@/components/announcements/page-announcement';
import { LOGBOOK_TITLE } from '@/content/logbook-title';
import { OwnSigns } from '../live/own-signs';
import type { OutboxDeliveryError } from '../outbox/delivery-error';
import type { SignNote } from '../outbox/sign-news';
import { useOutbox } from '../outbox/use-outbox';
import { useVisitReads } from '../reads/use-log-entries';
import { pendingEarlySign, takeEarlySign } from '../sign/early-sign';
import { readServedForm, restoreServedFocus } from '../sign/served-form';
import { useClientReady } from '../sign/use-client-ready';
import { useSignLogbook, type SignResult } from '../sign/use-sign-logbook';
import { STATUS } from '../status/messages';
import { notSignedReason } from '../status/reason';
import type { NewEntry } from '../types';
import { LogbookEntries } from './logbook-entries';
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
  // The reads are shown by LogbookEntries, which alone renders again as they change; the form only reloads them.
  const reads = useVisitReads();
  const { reload, reloadAfterSign } = reads;
  // Starts loading the client if nothing has yet; the form takes input and signs before it is ready.
  useClientReady();
  // The served form took input from its first paint: its text, focus and caret carry over to this one, and a sign
  // pressed there goes on as this form's own.
  const [takeover] = useState(() => (typeof window === 'undefined' ? null : { served: readServedForm(document), early: pendingEarlySign(window) }));
  const [fields, setFields] = useState<SignFields>(takeover?.served?.fields ?? EMPTY);
  const [signStatus, setSignStatus] = useState(takeover?.early === undefined ? '' : STATUS.signing);
  const clearStatus = useCallback(() => setSignStatus(''), []);
  // The live list (LogbookEntries) counts arrivals and recognises this page's own signs; the form's side of that is
  // kept here, so an arrival does not render the form again.
  const ownSigns = useMemo(() => new OwnSigns(), []);
  const expectOwn = useCallback((sign: NewEntry) => ownSigns.expect(sign), [ownSigns]);
  const [quietSince, setQuietSince] = useState(0);
  // The live region says what happened last: a sign's outcome, or the entries that arrived since.
  const say = useCallback((message: string) => {
    setSignStatus(message);
    setQuietSince((count) => count + 1);
  }, []);

  // What is shown outside the logbook (a new version's prompt) is said here too: the page has one live region.
  useEffect(() => listenForAnnouncements(say), [say]);

  // Whoever delivered or refused a kept sign (this tab, another, the service worker), every tab says so the same way.
  const onDelivered = useCallback(
    (signs: readonly SignNote[]) => {
      for (const sign of signs) expectOwn(sign);
      // The fields keep a waiting sign's text until it is stored.
      setFields((now) => (signs.some((sign) => same(sign, now)) ? EMPTY : now));
      say(STATUS.sent);
      reload();
    },
    [reload, expectOwn, say],
  );
  const onRefused = useCallback(
    (error: OutboxDeliveryError) => {
      console.error('Error inserting log:', error);
      say(STATUS.notSigned(notSignedReason(error)));
    },
    [say],
  );
  const outbox = useOutbox({ onDelivered, onRefused, onChanged: reload });

  const { sign, pending } = useSignLogbook({
    keep: outbox.save,
    forget: outbox.forget,
    pendingKey: (entry) => outbox.pending.find((item) => same(item, entry))?.key,
  });

  const showResult = useCallback(
    (entry: SignFields, result: SignResult) => {
      if (result.status === 'signed') {
        setFields((now) => (same(now, entry) ? EMPTY : now));
        say(STATUS.signed);
        reloadAfterSign(result.shown, result.stored);
      } else if (result.status === 'saved') {
        say(STATUS.saved);
      } else if (result.status === 'failed') {
        say(STATUS.notSigned(notSignedReason(result.error)));
      }
    },
    [say, reloadAfterSign],
  );

  async function handleSign(entry: SignFields) {
    say(STATUS.signing);
    expectOwn(entry);
    showResult(entry, await sign(entry));
  }

  // Before the first frame of this form: the focus stays where the visitor left it, and the served form's sign goes on
  // ("Signing…" throughout).
  const tookOver = useRef(false);
  useLayoutEffect(() => {
    if (tookOver.current) return;
    tookOver.current = true;
    if (takeover?.served?.focus) restoreServedFocus(document, takeover.served.focus);
    const early = takeEarlySign(window);
    if (early === undefined) return;
    const entry = { name: early.sign.name, message: early.sign.message };
    expectOwn(entry);
    void sign(entry, early).then((result) => showResult(entry, result));
  }, [takeover, expectOwn, sign, showResult]);

  return (
    <main className="logbook">
      <h1>{LOGBOOK_TITLE}</h1>
      <SignForm fields={fields} onChange={setFields} onSign={(entry) => void handleSign(entry)} pending={pending} />
      <LogbookEntries
        reads={reads}
        signStatus={signStatus}
        onAnnounce={clearStatus}
        ownSigns={ownSigns}
        quietSince={quietSince}
        pending={outbox.pending}
      />
    </main>
  );
}
