import { env } from '@/config/env';
import { loadLogbook } from './load-logbook';
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
    // as soon as the client is ready, instead of after React has rendered the logbook.
    void loadLogbook();
    void import('@/features/logbook/api/list-entries').then(({ prefetchLogEntries }) => prefetchLogEntries());
  }
  void import('./render-app').then(({ renderApp }) => renderApp(root));
}
