import { env } from '@/config/env';
import { LOGBOOK_TITLE } from '@/content/logbook-title';
import { startLogbook } from '@/features/logbook/first-paint/start-up';
import { untilNoSignInFlight } from '@/features/logbook/sign/signs-in-flight';
import { linkManifest } from './link-manifest';
import { loadLogbook } from './load-logbook';
import { FAILURE_TEXT, showPageFailure } from './page-failure';
import './global.css';
// Linked from index.html by the build, so the prerendered teaser's first paint is styled.
import '@/features/teaser/components/teaser.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// Compared through import.meta.env as well, so the teaser's build leaves the logbook's start-up and the service
// worker's registration out entirely.
const logbookOpen = import.meta.env.VITE_LOGBOOK_OPEN === 'true' && env.logbookOpen;

// The open logbook paints its first entries before React has loaded (features/logbook/first-paint/start-up.ts).
const logbook = logbookOpen ? startLogbook(root) : undefined;
/** Settles when React, the logbook's code, the service worker and the manifest are to be loaded. */
const firstEntries = logbook?.firstEntries ?? Promise.resolve();

// The teaser is prerendered into index.html at build time (app/build/prerender-teaser.ts): the page is
// complete before any script runs, and no React, client or wasm is downloaded for it. Everything else
// (the logbook, or a teaser that was not prerendered) is rendered by React, loaded only then.
if (logbookOpen || !root.firstElementChild) void firstEntries.then(() => renderPage(root));

// The production build's service worker keeps the logbook for offline visits, and its manifest makes it installable
// (the build leaves the manifest's link to this script). Both wait for the first entries, and for no sign to be in
// flight: the worker precaches the whole build, and the manifest brings an icon, on the same slow network.
if (import.meta.env.PROD && logbookOpen) {
  void firstEntries.then(untilNoSignInFlight).then(() => {
    linkManifest(document);
    if (!('serviceWorker' in navigator)) return;
    import('./service-worker/register-service-worker').then(
      ({ registerServiceWorker }) => registerServiceWorker(),
      (error: unknown) => console.error('Error registering the service worker:', error),
    );
  });
}

/**
 * Loads React and renders the page; if that fails, says so in `root` (as text) and offers to try again. With the
 * logbook open, the logbook's code is awaited too, so the first render draws the logbook itself: React replaces
 * what `root` holds (the logbook prerendered by the build, or a failure shown before) in that one commit, and the
 * prerendered form is never replaced by an empty page first.
 */
function renderPage(root: HTMLElement): void {
  // Loaded at the same time as React. A logbook that fails to load is reported by the page itself (App.tsx),
  // which loads it again.
  const logbookCode = logbookOpen ? loadLogbook().catch(() => undefined) : undefined;
  Promise.all([import('./render-app'), logbookCode]).then(
    async ([{ renderApp }]) => {
      await logbook?.beforeReact();
      performance.mark('geocache:react-render');
      renderApp(root);
    },
    (error: unknown) => {
      console.error('Error loading the page:', error);
      showPageFailure(root, {
        title: logbookOpen ? LOGBOOK_TITLE : null,
        text: logbookOpen ? FAILURE_TEXT.logbookNotLoaded : FAILURE_TEXT.pageNotLoaded,
        onRetry: () => renderPage(root),
      });
    },
  );
}
