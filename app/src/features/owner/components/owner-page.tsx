import { useCallback, useEffect, useRef, useState } from 'react';
import { getOwnerClient, type Client } from '../api/owner-client';
import { errorWords } from '../session/error-words';
import { CodeFormatError, CodeVerifier, stepAfterSignIn, type OwnerStep } from '../session/owner-steps';
import { CodeForm } from './code-form';
import { OwnerTools } from './owner-tools';
import { SignInForm } from './sign-in-form';
import './owner.css';

/**
 * The owner's page: sign-in, then the second factor (enrolled on first use), then the entries with "Remove" and the
 * removed entries with "Restore". One live region says what happened; focus moves to each new step's heading. A
 * session that ends (expired, signed out elsewhere) brings the sign-in form back with the e-mail kept, and the
 * owner returns to the step they were on.
 */
export function OwnerPage() {
  const [{ client, failure }] = useState(startClient);
  const [step, setStep] = useState<OwnerStep>({ kind: client === null ? 'sign-in' : 'starting' });
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [words, setWords] = useState(failure);
  const verifier = useRef<CodeVerifier | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  /** Moves focus to the heading of the step rendered next. */
  const focusNext = useRef(false);

  const say = useCallback((said: string) => setWords(said), []);
  const show = useCallback((next: OwnerStep) => {
    focusNext.current = true;
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
    if (client === null) return;
    const { data } = client.auth.onAuthStateChange((event) => {
      // The client signs out by itself when its session cannot be refreshed (expired, revoked).
      if (event === 'SIGNED_OUT') setStep((now) => (now.kind === 'sign-in' ? now : { kind: 'sign-in' }));
    });
    stepAfterSignIn(client.auth).then(enter, (error: unknown) => {
      say(errorWords(error, 'Restoring the session'));
      show({ kind: 'sign-in' });
    });
    return () => data.subscription.unsubscribe();
  }, [client, enter, say, show]);

  useEffect(() => {
    if (!focusNext.current) return;
    focusNext.current = false;
    heading.current?.focus();
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
      if (client === null) throw new Error('The page is not configured.');
      const { error } = await client.auth.signInWithPassword({ email: typed.trim(), password });
      if (error !== null) throw error;
      say('Signed in.');
      enter(await stepAfterSignIn(client.auth));
    });

  const verify = (code: string) =>
    void run('Verifying the code', async () => {
      if (client === null || (step.kind !== 'verify' && step.kind !== 'enrol')) return;
      verifier.current ??= new CodeVerifier(client.auth.mfa);
      await verifier.current.verify(step.factorId, code);
      say('Code accepted.');
      show({ kind: 'ready' });
    });

  const signOut = () =>
    void run('Signing out', async () => {
      if (client === null) return;
      const { error } = await client.auth.signOut();
      if (error !== null) throw error;
      say('Signed out.');
      show({ kind: 'sign-in' });
    });

  const sessionLost = useCallback(() => {
    say('Your session has ended: sign in again to go on.');
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
      {step.kind === 'ready' && client !== null && <OwnerTools client={client} say={say} onSessionLost={sessionLost} headingRef={heading} />}
    </main>
  );
}

/** The page's client, or why there is none (a configuration the page or the client rejects), said in words. */
function startClient(): { client: Client | null; failure: string } {
  try {
    return { client: getOwnerClient(), failure: '' };
  } catch (error) {
    return { client: null, failure: errorWords(error, 'Starting the page') };
  }
}
