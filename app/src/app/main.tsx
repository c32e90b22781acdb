import { env } from '@/config/env';
import { LOGBOOK_TITLE } from '@/content/logbook-title';
import { loadLogbook } from './load-logbook';
import { FAILURE_TEXT, showPageFailure } from './page-failure';
import './global.css';
// Linked from index.html by the build, so the prerendered teaser's first paint is styled.
import '@/features/teaser/components/teaser.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// The teaser is prerendered into index.html at build time (app/build/prerender-teaser.ts): the page is
// complete before any script runs, and no React, client or wasm is downloaded for it. Everything else
// (the logbook, or a teaser that was not prerendered) is rendered by React, loaded only then.
if (env.logbookOpen || !root.firstElementChild) {
  if (env.logbookOpen) {
    // Loads the logbook's code and the wasm client while React loads, and starts the first request
    // as soon as the client is ready, instead of after React has rendered the logbook. If either
    // fails, the logbook's own load (App.tsx) tries again and reports it.
    loadLogbook().catch(() => undefined);
    import('@/features/logbook/api/prefetch-entries').then(
      ({ prefetchLogEntries }) => prefetchLogEntries(),
      () => undefined,
    );
  }
  renderPage(root);
}

/** Loads React and renders the page; if that fails, says so in `root` (as text) and offers to try again. */
function renderPage(root: HTMLElement): void {
  import('./render-app').then(
    ({ renderApp }) => {
      // Clears a failure shown before.
      root.replaceChildren();
      renderApp(root);
    },
    (error: unknown) => {
      console.error('Error loading the page:', error);
      showPageFailure(root, {
        title: env.logbookOpen ? LOGBOOK_TITLE : null,
        text: env.logbookOpen ? FAILURE_TEXT.logbookNotLoaded : FAILURE_TEXT.pageNotLoaded,
        onRetry: () => renderPage(root),
      });
    },
  );
}
