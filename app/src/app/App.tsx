import { useEffect, useState, type ComponentType } from 'react';
import { ErrorBoundary } from '@/components/errors/error-boundary';
import { env } from '@/config/env';
import { Teaser } from '@/features/teaser/components/teaser';
import { loadedLogbook, loadLogbook } from './load-logbook';
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
 * The logbook, rendered as soon as its code is there: at once when main.tsx has already loaded it.
 * (Not React.lazy: a Suspense boundary that showed its fallback holds the content back for up to
 * 300 ms more, which was a third of the time to the first entries.) If its code or the wasm client
 * cannot be loaded, says so and offers to try again.
 */
function LogbookWhenLoaded() {
  const [state, setState] = useState<LoadState>(() => {
    const Logbook = loadedLogbook();
    return Logbook ? { status: 'loaded', Logbook } : { status: 'loading' };
  });
  const pending = state.status === 'loading' || state.status === 'retrying';
  const retryOf = state.status === 'retrying' ? state.error : undefined;

  useEffect(() => {
    if (!pending) return;
    let current = true;
    loadLogbook().then(
      (Logbook) => {
        if (current) setState({ status: 'loaded', Logbook });
      },
      (error: unknown) => {
        if (!current) return;
        // A module that failed while running (the wasm client's, when its .wasm could not be fetched or
        // compiled) keeps that very error for the life of the document: importing it again cannot succeed,
        // only a reload fetches it again. (A module that could not be fetched is fetched again.)
        if (retryOf !== undefined && error === retryOf) {
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
  }, [pending, retryOf]);

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
          onRetry={() => setState({ status: 'retrying', error: state.error })}
        />
      );
  }
}
