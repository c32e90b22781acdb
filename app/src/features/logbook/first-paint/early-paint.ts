import { readKeptHead } from '../device-copy/early-read';
import { readFirstCards } from '../device-copy/first-cards';
import { plainRows } from '../device-copy/plain-rows';
import type { EarlyPaint } from './early-paint-handle';
import { preloadFirstVisit, type FirstVisitFiles } from './first-visit-files';
import { paintEntries, servedList } from './paint-entries';
import type { KeptEntry } from '../types';

/**
 * Paints `entries` into the served list as soon as the parser has put it in the document: at once when it is there
 * already, else from the mutation that brings it, which is delivered when the parser's task that inserted it ends,
 * before the browser draws another frame. The end of parsing comes too late: where the service worker answers the
 * page's own files, as on a repeat visit behind any host, each arrives as a task of its own, and the browser draws a
 * frame without the cards while the parser waits to end. True when it painted them; false when parsing ends with no
 * list to fill. Never throws: an entry that cannot be shown is React's to report, as it renders the same list.
 */
function paintOnceParsed(document: Document, entries: readonly KeptEntry[]): Promise<boolean> {
  const paint = () => {
    const root = document.getElementById('root');
    try {
      return root !== null && paintEntries(root, plainRows(entries));
    } catch {
      return false;
    }
  };
  const listParsed = () => {
    const root = document.getElementById('root');
    return root !== null && servedList(root) !== null;
  };
  if (document.readyState !== 'loading' || listParsed()) return Promise.resolve(paint());
  return new Promise((resolve) => {
    const done = () => {
      observer.disconnect();
      document.removeEventListener('readystatechange', done);
      resolve(paint());
    };
    const observer = new MutationObserver(() => {
      if (listParsed()) done();
    });
    observer.observe(document, { childList: true, subtree: true });
    document.addEventListener('readystatechange', done);
  });
}

/**
 * The work of the open logbook's one inline script (inline-script.ts), which the parser runs before it has read the
 * rest of the page: paints the newest entries kept on this device into the served list as soon as the list is
 * parsed, and reads the copy's head for the visit's read meanwhile. The entries to paint come from localStorage when
 * they are there (device-copy/first-cards.ts: read at once), else from that read. A visit with nothing to paint asks
 * for `firstVisit`'s files instead, which its first entries come from. Never rejects.
 */
export async function startEarlyPaint(document: Document, firstVisit: FirstVisitFiles): Promise<EarlyPaint> {
  performance.mark('geocache:device-copy-read-started');
  const reading = readKeptHead();
  const firstCards = readFirstCards();
  const paint = async (entries: readonly KeptEntry[]) => {
    const painted = await paintOnceParsed(document, entries);
    if (painted) performance.mark('geocache:kept-entries-painted');
    return painted;
  };
  let painted = firstCards !== null && (await paint(firstCards));
  const kept = await reading;
  performance.mark('geocache:device-copy-read');
  if (!painted && kept !== null) painted = await paint(kept.entries);
  if (!painted) preloadFirstVisit(document, firstVisit);
  return { kept, painted };
}
