import { env } from '@/config/env';
import { LOGBOOK_TITLE } from '@/content/logbook-title';
import { readCopyEarly } from '@/features/logbook/device-copy/early-read';
import { plainRows } from '@/features/logbook/device-copy/plain-rows';
import { earlyPaintOf } from '@/features/logbook/first-paint/early-paint-handle';
import { paintFirstPage } from '@/features/logbook/first-paint/first-page';
import { paintEntries, servedList } from '@/features/logbook/first-paint/paint-entries';
import { linkManifest } from './link-manifest';
import { loadLogbook } from './load-logbook';
import { FAILURE_TEXT, showPageFailure } from './page-failure';
import { untilFirstEntries } from './until-first-entries';
import './global.css';
// Linked from index.html by the build, so the prerendered teaser's first paint is styled.
import '@/features/teaser/components/teaser.css';
import type { EntryRows } from '@/features/logbook/types';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

/** Set once React has been asked to render the page: from then on only React changes what `root` holds. */
let reactRendering = false;
/** Settles once the frame showing the entries painted below has been drawn (React's first render is a long task). */
let entriesShown: Promise<void> | undefined;

/**
 * Paints the first entries into the served HTML's empty list if React has not rendered yet (paint-entries.ts):
 * on a slow phone that is long before React's code has arrived and run. True when it painted them. Never throws:
 * it runs inside the read's page callback.
 */
const paintBeforeReact = (rows: EntryRows, mark: string): boolean => {
  if (reactRendering) return false;
  try {
    if (!paintEntries(root, rows)) return false;
  } catch {
    // An entry that cannot be shown (its time cannot be formatted, say) is React's to report: it renders the same.
    return false;
  }
  performance.mark(mark);
  void awaitFrame();
  return true;
};

/** Entries were just painted: React waits for the frame that shows them (entriesShown). */
function awaitFrame(): Promise<void> {
  entriesShown = new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    // A hidden tab draws no frames: React does not wait for one there.
    setTimeout(resolve, 100);
  });
  return entriesShown;
}

// The entries kept on this device, painted as soon as they are read. The production build's served page reads and
// paints them in its inline script, while the parser is still reading the page (first-paint/early-paint.ts); where
// that script did not run (the dev server, a host whose own policy blocks it), this entry script reads them first
// thing (IndexedDB's own API, a few lines; compared here rather than through env so the teaser's build leaves it out).
// The logbook's read plans from this same copy (device-copy/early-read.ts).
let keptPainted: Promise<boolean> | null = null;
/** Settles once the kept entries' frame is drawn, or at once when there are none: the visit's read starts then. */
let keptShown: Promise<unknown> = Promise.resolve();
/** The served page's inline script, where it ran (only a production build's prerendered logbook has one). */
const early = import.meta.env.VITE_LOGBOOK_OPEN === 'true' && env.logbookOpen ? earlyPaintOf(window) : undefined;
if (import.meta.env.VITE_LOGBOOK_OPEN === 'true' && env.logbookOpen) {
  if (early === undefined) {
    performance.mark('geocache:device-copy-read-started');
    keptPainted = readCopyEarly().then((kept) => {
      performance.mark('geocache:device-copy-read');
      const painted = kept !== null && paintBeforeReact(plainRows(kept.entries), 'geocache:kept-entries-painted');
      // Settled once the frame showing them is drawn: React's and the logbook's module evaluation, started when this
      // settles, would otherwise run first and hold that frame back on a slow phone.
      return painted ? (entriesShown ?? Promise.resolve()).then(() => true) : false;
    });
  } else {
    // The visit's read plans from the copy the inline script read: readCopyEarly takes it up.
    void readCopyEarly();
    keptPainted = early.then(({ painted }) => (painted ? awaitFrame().then(() => true) : false), () => false);
    keptShown = keptPainted;
  }
}

/**
 * Settles when React, the logbook's code, the service worker and the manifest are to be loaded: once the first
 * entries are painted (until-first-entries.ts), at once when the page has none to wait for.
 */
let firstEntries: Promise<void> = Promise.resolve();

// The teaser is prerendered into index.html at build time (app/build/prerender-teaser.ts): the page is
// complete before any script runs, and no React, client or wasm is downloaded for it. Everything else
// (the logbook, or a teaser that was not prerendered) is rendered by React, loaded only then.
if (env.logbookOpen || !root.firstElementChild) {
  if (env.logbookOpen) {
    // Starts the visit's read before React has loaded: it plans from the copy read above, then asks for the entries
    // it lacks once the wasm client is ready (the logbook takes the read over when it renders). On a first visit its
    // first page is painted as soon as it is read. If the chunk fails, the logbook's own load (App.tsx) tries again
    // and reports it.
    const read = keptShown.then(() => import('@/features/logbook/reads/prefetch-entries')).then(
      ({ prefetchLogEntries }) => paintFirstPage(prefetchLogEntries(), (firstPage) => paintBeforeReact(firstPage, 'geocache:first-page-painted')),
      () => false,
    );
    // Nothing to wait for without a served list to paint into (a page the build did not prerender, the dev server),
    // or with a configuration the client rejects (the read fails as soon as the client has loaded). A list the inline
    // script has painted into is served too.
    const served = early !== undefined || servedList(root) !== null;
    const readCanPaint = served && env.configError === null && env.supabaseUrl !== '' && env.supabaseKey !== '';
    if (keptPainted !== null && readCanPaint) firstEntries = untilFirstEntries({ kept: keptPainted, read });
  }
  void firstEntries.then(() => renderPage(root));
}

// The production build's service worker keeps the logbook for offline visits, and its manifest makes it installable
// (the build leaves the manifest's link to this script). Both wait for the first entries: the worker precaches
// the whole build, and the manifest brings an icon, on the same slow network. Compared here rather than through env
// so the teaser's build leaves the registration code out entirely.
if (import.meta.env.PROD && import.meta.env.VITE_LOGBOOK_OPEN === 'true') {
  void firstEntries.then(() => {
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
  const logbook = env.logbookOpen ? loadLogbook().catch(() => undefined) : undefined;
  Promise.all([import('./render-app'), logbook]).then(
    async ([{ renderApp }]) => {
      reactRendering = true;
      // Entries just painted are drawn first: React would otherwise hold that frame back until it has rendered.
      await entriesShown;
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
