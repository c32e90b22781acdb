import { env } from '@/config/env';
import { LOGBOOK_TITLE } from '@/content/logbook-title';
import { readCopyEarly } from '@/features/logbook/device-copy/early-read';
import { paintKeptEntries } from '@/features/logbook/device-copy/paint-kept-entries';
import { loadLogbook } from './load-logbook';
import { FAILURE_TEXT, showPageFailure } from './page-failure';
import './global.css';
// Linked from index.html by the build, so the prerendered teaser's first paint is styled.
import '@/features/teaser/components/teaser.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

/** Set once React has been asked to render the page: from then on only React changes what `root` holds. */
let reactRendering = false;
/** Settles once the frame showing the entries painted below has been drawn (React's first render is a long task). */
let keptEntriesShown: Promise<void> | undefined;
/**
 * Settles once the early read below has found no copy, or its entries are painted and drawn. On a repeat visit the
 * logbook's code, React and the wasm client start only then: on a slow phone their scripts' work, queued while the
 * copy is read, would otherwise hold back the read's answer and the frame that shows it. A read slower than
 * KEPT_ENTRIES_WAIT_MS (a busy device, an IndexedDB that never answers) holds nothing back.
 */
let keptEntriesFirst: Promise<void> = Promise.resolve();
const KEPT_ENTRIES_WAIT_MS = 500;

// The entries kept on this device, read before any other script has loaded (IndexedDB's own API, a few lines in
// this entry script; compared here rather than through env so the teaser's build leaves it out), and painted into
// the served HTML as soon as they are read, if React has not rendered yet: on a slow phone that is long before
// React's code has run. The logbook's read plans from this same copy (device-copy/early-read.ts).
if (import.meta.env.VITE_LOGBOOK_OPEN === 'true' && env.logbookOpen) {
  performance.mark('geocache:device-copy-read-started');
  const painted = readCopyEarly().then((kept) => {
    performance.mark('geocache:device-copy-read');
    if (kept === null || reactRendering || !paintKeptEntries(root, kept.entries)) return;
    performance.mark('geocache:kept-entries-painted');
    keptEntriesShown = new Promise((resolve) => {
      requestAnimationFrame(() => setTimeout(resolve, 0));
      // A hidden tab draws no frames: React does not wait for one there.
      setTimeout(resolve, 100);
    });
    return keptEntriesShown;
  });
  keptEntriesFirst = Promise.race([painted, new Promise<void>((resolve) => setTimeout(resolve, KEPT_ENTRIES_WAIT_MS))]);
}

// The teaser is prerendered into index.html at build time (app/build/prerender-teaser.ts): the page is
// complete before any script runs, and no React, client or wasm is downloaded for it. Everything else
// (the logbook, or a teaser that was not prerendered) is rendered by React, loaded only then.
if (env.logbookOpen || !root.firstElementChild) void keptEntriesFirst.then(() => startPage(root));

function startPage(root: HTMLElement): void {
  if (env.logbookOpen) {
    // Starts the visit's read before React has loaded: it plans from the copy read above, then asks for the entries
    // it lacks once the wasm client is ready (the logbook takes the read over when it renders). If the chunk fails,
    // the logbook's own load (App.tsx) tries again and reports it.
    import('@/features/logbook/api/prefetch-entries').then(
      ({ prefetchLogEntries }) => prefetchLogEntries(),
      () => undefined,
    );
  }
  renderPage(root);
}

// The production build's service worker keeps the logbook for offline visits. Compared here rather than through
// env so the teaser's build leaves the registration code out entirely.
if (import.meta.env.PROD && import.meta.env.VITE_LOGBOOK_OPEN === 'true' && 'serviceWorker' in navigator) {
  void keptEntriesFirst.then(() => import('./service-worker/register-service-worker')).then(
    ({ registerServiceWorker }) => registerServiceWorker(),
    (error: unknown) => console.error('Error registering the service worker:', error),
  );
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
  const logbook = env.logbookOpen ? loadLogbook().catch(() => undefined) : undefined;
  Promise.all([import('./render-app'), logbook]).then(
    async ([{ renderApp }]) => {
      reactRendering = true;
      // Entries just painted are drawn first: React would otherwise hold that frame back until it has rendered.
      await keptEntriesShown;
      performance.mark('geocache:react-render');
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
