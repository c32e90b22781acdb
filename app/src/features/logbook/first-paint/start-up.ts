import { env } from '@/config/env';
import { readCopyEarly } from '../device-copy/early-read';
import { plainRows } from '../device-copy/plain-rows';
import { sendEarlySigns } from '../sign/early-sign';
import type { EntryRows } from '../types';
import { earlyPaintOf, type EarlyPaint } from './early-paint-handle';
import { paintFirstPage } from './first-page';
import { paintEntries, servedList } from './paint-entries';
import { untilFirstEntries } from './until-first-entries';

/** The open logbook's start-up, as the page's entry script sees it. */
export interface LogbookStartUp {
  /**
   * Settles when the page should load what the first entries do not need (React, the logbook's code, the service
   * worker, the manifest): once they are painted (until-first-entries.ts), at once when there is nothing to wait
   * for. Never rejects.
   */
  readonly firstEntries: Promise<void>;
  /**
   * Called once React's code and the logbook's have loaded, right before React renders: nothing is painted here from
   * then on. Settles once the frame showing what was painted is drawn: React's first render is a long task that
   * would otherwise hold that frame back.
   */
  readonly beforeReact: () => Promise<void>;
}

/** How the start-up stands: one object, read and written by the steps below. */
interface StartUp {
  readonly root: HTMLElement;
  /** Set once React is about to render: from then on only React changes what `root` holds. */
  reactRendering: boolean;
  /** Settles once the frame showing the entries painted here has been drawn. */
  entriesShown: Promise<void> | undefined;
}

/** Where the entries kept on this device stand. */
interface Kept {
  /** True once they are painted and the frame showing them is drawn; false when none were painted. */
  readonly painted: Promise<boolean>;
  /** Settles when the visit's read may start. */
  readonly readStarts: Promise<unknown>;
}

/**
 * Starts the open logbook in `root` (the served HTML) before React has loaded, in three steps:
 * 1. The entries kept on this device are painted into the served list. The production build's served page reads and
 *    paints them in its inline script, while the parser is still reading the page (early-paint.ts); where that
 *    script did not run (the dev server, a host whose own policy blocks it), they are read and painted here.
 * 2. The visit's read starts (reads/prefetch-entries.ts): it plans from the copy read in step 1, then asks for the
 *    entries it lacks once the wasm client is ready; the logbook takes it over when it renders. On a first visit its
 *    first page is painted as soon as it is read.
 * 3. React waits for those first entries, then for the frame that shows them.
 */
export function startLogbook(root: HTMLElement): LogbookStartUp {
  const startUp: StartUp = { root, reactRendering: false, entriesShown: undefined };
  // A sign pressed in the served form is sent as soon as the client has loaded, before React.
  sendEarlySigns(window);
  const early = earlyPaintOf(window);
  // Before anything is painted here; a list the inline script has painted into is served too.
  const served = early !== undefined || servedList(root) !== null;

  // 1. The kept entries.
  const kept = early === undefined ? readAndPaintKept(startUp) : takeUpEarlyPaint(startUp, early);

  // 2. The visit's read. If its chunk fails, the logbook's own load (App.tsx) tries again and reports it.
  const read = kept.readStarts
    .then(() => import('../reads/prefetch-entries'))
    .then(
      ({ prefetchLogEntries }) => paintFirstPage(prefetchLogEntries(), (page) => paintBeforeReact(startUp, page, 'geocache:first-page-painted')),
      () => false,
    );

  // 3. React. Nothing to wait for without a served list to paint into (a page the build did not prerender, the dev
  // server), or with a configuration the client rejects (the read fails as soon as the client has loaded).
  const readCanPaint = served && env.configError === null && env.supabaseUrl !== '' && env.supabaseKey !== '';
  return {
    firstEntries: readCanPaint ? untilFirstEntries({ kept: kept.painted, read }) : Promise.resolve(),
    beforeReact: () => {
      startUp.reactRendering = true;
      return startUp.entriesShown ?? Promise.resolve();
    },
  };
}

/**
 * Reads the kept entries here, first thing (IndexedDB's own API: device-copy/early-read.ts), and paints them. The
 * visit's read starts alongside: it plans from this same read of the copy.
 */
function readAndPaintKept(startUp: StartUp): Kept {
  performance.mark('geocache:device-copy-read-started');
  const painted = readCopyEarly().then((copy) => {
    performance.mark('geocache:device-copy-read');
    const shown = copy !== null && paintBeforeReact(startUp, plainRows(copy.entries), 'geocache:kept-entries-painted');
    // Settled once the frame showing them is drawn: React's and the logbook's module evaluation, started when this
    // settles, would otherwise run first and hold that frame back on a slow phone.
    return shown ? (startUp.entriesShown ?? Promise.resolve()).then(() => true) : false;
  });
  return { painted, readStarts: Promise.resolve() };
}

/**
 * Takes up what the served page's inline script did: the visit's read plans from the copy it read
 * (device-copy/early-read.ts), and starts once the frame showing what it painted is drawn, or at once when it painted
 * nothing.
 */
function takeUpEarlyPaint(startUp: StartUp, early: Promise<EarlyPaint>): Kept {
  void readCopyEarly();
  const painted = early.then(({ painted: shown }) => (shown ? awaitFrame(startUp).then(() => true) : false), () => false);
  return { painted, readStarts: painted };
}

/**
 * Paints the first entries into the served HTML's empty list if React has not rendered yet (paint-entries.ts): on a
 * slow phone that is long before React's code has arrived and run. True when it painted them. Never throws: it runs
 * inside the read's page callback.
 */
function paintBeforeReact(startUp: StartUp, rows: EntryRows, mark: string): boolean {
  if (startUp.reactRendering) return false;
  try {
    if (!paintEntries(startUp.root, rows)) return false;
  } catch {
    // An entry that cannot be shown (its time cannot be formatted, say) is React's to report: it renders the same.
    return false;
  }
  performance.mark(mark);
  void awaitFrame(startUp);
  return true;
}

/** Entries were just painted: React waits for the frame that shows them. */
function awaitFrame(startUp: StartUp): Promise<void> {
  startUp.entriesShown = new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    // A hidden tab draws no frames: React does not wait for one there.
    setTimeout(resolve, 100);
  });
  return startUp.entriesShown;
}
