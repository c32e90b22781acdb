import { useCallback, useEffect, useRef, useState } from 'react';
import { hasStoredSession, loadOwnerClient } from '../api/owner-client-code';
import type { Client } from '../types';
import { errorWords } from '../session/error-words';
import { CodeFormatError, CodeVerifier, stepAfterSignIn, type OwnerStep } from '../session/owner-steps';
import { CodeForm } from './code-form';
import { OwnerTools } from './owner-tools';
import { SignInForm } from './sign-in-form';
import './owner.css';

/** Said when the session ends without the owner signing out, whichever way the page learns of it. */
const SESSION_ENDED = 'Your session has ended: sign in again to go on.';

/**
 * The owner's page: sign-in, then the second factor (enrolled on first use), then the entries with "Remove" and the
 * removed entries with "Restore". One live region says what happened; focus moves to each new step's heading. A
 * session that ends (expired, signed out elsewhere) brings the sign-in form back with the e-mail kept, and the
 * owner returns to the step they were on.
 */
export function OwnerPage() {
  const [client, setClient] = useState<Client | null>(null);
  // Without a stored session the form shows at once, and takes typing while the client loads.
  const [step, setStep] = useState<OwnerStep>(() => ({ kind: hasStoredSession() ? 'starting' : 'sign-in' }));
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [words, setWords] = useState('');
  const verifier = useRef<CodeVerifier | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const toolsHeading = useRef<HTMLHeadingElement>(null);
  /**
   * Once the owner's tools have shown, they stay mounted (hidden) when the session ends by itself, so the owner comes
   * back to the same place (lists, scroll, the focused entry) after signing in again; "Sign out" lets them go. Each
   * return to them reads the lists afresh (`visits`).
   */
  const [kept, setKept] = useState({ tools: false, visits: 0 });
  /** What had focus when the session ended, focused again on the way back. */
  const place = useRef<Element | null>(null);
  /** Moves focus to the heading of the step rendered next. */
  const focusNext = useRef(false);
  /** True while "Sign out" runs, so the client's own sign-out event is not taken for a session that ended. */
  const signingOut = useRef(false);

  const say = useCallback((said: string) => setWords(said), []);
  const show = useCallback((next: OwnerStep) => {
    focusNext.current = true;
    if (next.kind === 'ready') setKept((now) => ({ tools: true, visits: now.visits + 1 }));
    setStep(next);
  }, []);

  /** Shows `next`, challenging ahead when it asks for a code. */
  const enter = useCallback(
    (next: OwnerStep) => {
      if (next.kind === 'verify' && client !== null) {
        verifier.current ??= new CodeVerifier(client.auth.mfa);
        void verifier.current.prepare(next.factorId).catch(() => undefined);
      }
      show(next);
    },
    [client, show],
  );

  useEffect(() => {
    let stopped = false;
    startClient().then(
      (started) => {
        if (!stopped) setClient(started);
      },
      (error: unknown) => {
        if (stopped) return;
        setWords(errorWords(error, 'Starting the page'));
        setStep({ kind: 'sign-in' });
      },
    );
    return () => {
      stopped = true;
    };
  }, []);

  useEffect(() => {
    if (client === null) return;
    const { data } = client.auth.onAuthStateChange((event) => {
      // The client signs out by itself when its session cannot be refreshed (expired, revoked); "Sign out" says its
      // own words.
      if (event !== 'SIGNED_OUT' || signingOut.current) return;
      place.current ??= document.activeElement;
      say(SESSION_ENDED);
      show({ kind: 'sign-in' });
    });
    stepAfterSignIn(client.auth).then(
      // A visit without a stored session stays on the form it already shows (and its focus).
      (next) => (next.kind === 'sign-in' ? setStep(next) : enter(next)),
      (error: unknown) => {
        say(errorWords(error, 'Restoring the session'));
        show({ kind: 'sign-in' });
      },
    );
    return () => data.subscription.unsubscribe();
  }, [client, enter, say, show]);

  useEffect(() => {
    if (!focusNext.current) return;
    focusNext.current = false;
    const back = place.current;
    if (step.kind === 'ready') place.current = null;
    if (step.kind === 'ready' && back instanceof HTMLElement && back.isConnected && back !== document.body) back.focus();
    else (step.kind === 'ready' ? toolsHeading : heading).current?.focus();
  }, [step]);

  const run = async (doing: string, action: () => Promise<void>) => {
    setBusy(true);
    try {
      await action();
    } catch (error) {
      say(error instanceof CodeFormatError ? error.message : errorWords(error, doing));
    } finally {
      setBusy(false);
    }
  };

  const signIn = (typed: string, password: string) =>
    void run('Signing in', async () => {
      const signingIn = client ?? (await startClient());
      const { error } = await signingIn.auth.signInWithPassword({ email: typed.trim(), password });
      if (error !== null) throw error;
      say('Signed in.');
      enter(await stepAfterSignIn(signingIn.auth));
    });

  const verify = (code: string) =>
    void run('Verifying the code', async () => {
      if (step.kind !== 'verify' && step.kind !== 'enrol') return;
      const using = client ?? (await startClient());
      verifier.current ??= new CodeVerifier(using.auth.mfa);
      await verifier.current.verify(step.factorId, code);
      say('Code accepted.');
      show({ kind: 'ready' });
    });

  const signOut = () =>
    void run('Signing out', async () => {
      if (client === null) return;
      signingOut.current = true;
      const { error } = await client.auth.signOut().finally(() => {
        signingOut.current = false;
      });
      if (error !== null) throw error;
      say('Signed out.');
      setKept((now) => ({ ...now, tools: false }));
      place.current = null;
      show({ kind: 'sign-in' });
    });

  const sessionLost = useCallback(() => {
    place.current ??= document.activeElement;
    say(SESSION_ENDED);
    show({ kind: 'sign-in' });
  }, [say, show]);

  return (
    <main className="owner-page">
      <header className="owner-header">
        <h1>Logbook owner</h1>
        {step.kind !== 'sign-in' && step.kind !== 'starting' && (
          <button type="button" onClick={signOut} disabled={busy}>
            Sign out
          </button>
        )}
      </header>
      <p role="status" className="owner-status">
        {words}
      </p>
      {step.kind === 'starting' && <p>Loading…</p>}
      {step.kind === 'sign-in' && <SignInForm email={email} onEmail={setEmail} busy={busy} onSignIn={signIn} headingRef={heading} />}
      {step.kind === 'enrol' && <CodeForm enrolment={step} busy={busy} onCode={verify} headingRef={heading} />}
      {step.kind === 'verify' && <CodeForm busy={busy} onCode={verify} headingRef={heading} />}
      {client !== null && (step.kind === 'ready' || kept.tools) && (
        <div hidden={step.kind !== 'ready'}>
          <OwnerTools client={client} visit={kept.visits} say={say} onSessionLost={sessionLost} headingRef={toolsHeading} />
        </div>
      )}
    </main>
  );
}

/** The page's client, once its code has loaded; rejects when it cannot load or the configuration is rejected. */
async function startClient(): Promise<Client> {
  const { getOwnerClient } = await loadOwnerClient();
  return getOwnerClient();
}
