import { useEffect, useRef, useState, type ComponentType } from 'react';
import { ErrorBoundary } from '@/components/errors/error-boundary';
import { env } from '@/config/env';
import { Teaser } from '@/features/teaser/components/teaser';
import { loadClientCode, loadedLogbook, loadLogbook } from './load-logbook';
import { LogbookUnavailable } from './logbook-unavailable';
import { reloadPage } from './reload-page';

export function App() {
  if (!env.logbookOpen) return <Teaser />;
  return (
    <ErrorBoundary
      onError={(error) => console.error('Error showing the logbook:', error)}
      // "Try again" mounts the logbook afresh, which loads the entries again.
      fallback={({ reset }) => <LogbookUnavailable reason="logbookNotShown" onRetry={reset} />}
    >
      <LogbookWhenLoaded />
    </ErrorBoundary>
  );
}

type LoadState =
  | { readonly status: 'loaded'; readonly Logbook: ComponentType }
  | { readonly status: 'loading' }
  | { readonly status: 'failed'; readonly error: unknown }
  | { readonly status: 'retrying'; readonly error: unknown };

/**
 * The logbook, rendered as soon as its code is there: at once when main.tsx has already loaded it. The wasm client
 * loads alongside and is not waited for (the logbook shows the entries kept on the device meanwhile, its form
 * disabled). (Not React.lazy: a Suspense boundary that showed its fallback holds the content back a while longer,
 * by React's own throttle, and the first entries would wait for it.) If its code or the wasm client cannot be
 * loaded, says so in place of the logbook and offers to try again.
 */
function LogbookWhenLoaded() {
  const [state, setState] = useState<LoadState>(() => {
    const Logbook = loadedLogbook();
    return Logbook ? { status: 'loaded', Logbook } : { status: 'loading' };
  });
  const [attempt, setAttempt] = useState(0);
  /** The failure "Try again" was pressed after, if any. */
  const retryOf = useRef<{ readonly error: unknown } | null>(null);

  useEffect(() => {
    let current = true;
    const already = loadedLogbook();
    const logbook = already === undefined ? loadLogbook() : Promise.resolve(already);
    logbook.then(
      (Logbook) => {
        if (current) setState((now) => (now.status === 'loading' ? { status: 'loaded', Logbook } : now));
      },
      () => undefined,
    );
    Promise.all([logbook, loadClientCode()]).then(
      ([Logbook]) => {
        if (current) setState((now) => (now.status === 'loaded' ? now : { status: 'loaded', Logbook }));
      },
      (error: unknown) => {
        if (!current) return;
        // A module that failed while running (the wasm client's, when its .wasm could not be fetched or
        // compiled) keeps that very error for the life of the document: importing it again cannot succeed,
        // only a reload fetches it again. (A module that could not be fetched is fetched again.)
        if (retryOf.current !== null && error === retryOf.current.error) {
          reloadPage();
          return;
        }
        console.error('Error loading the logbook:', error);
        setState({ status: 'failed', error });
      },
    );
    return () => {
      current = false;
    };
  }, [attempt]);

  switch (state.status) {
    case 'loaded':
      return <state.Logbook />;
    case 'loading':
      return null;
    case 'failed':
    case 'retrying':
      return (
        <LogbookUnavailable
          reason="logbookNotLoaded"
          retrying={state.status === 'retrying'}
          onRetry={() => {
            retryOf.current = { error: state.error };
            setState({ status: 'retrying', error: state.error });
            setAttempt((count) => count + 1);
          }}
        />
      );
  }
}
