import { readKeptHead } from '../device-copy/early-read';
import { readFirstCards } from '../device-copy/first-cards';
import { plainRows } from '../device-copy/plain-rows';
import type { EarlyPaint } from './early-paint-handle';
import { preloadFirstVisit, type FirstVisitFiles } from './first-visit-files';
import { paintEntries } from './paint-entries';
import type { KeptEntry } from '../types';

/**
 * Paints `entries` into the served list once the document is parsed (the list exists): at once when it already
 * is, else from the `readystatechange` that ends parsing, which comes before the page's deferred scripts run and,
 * on a slow phone, before its first frame. True when it painted them. Never throws: an entry that cannot be shown
 * is React's to report, as it renders the same list.
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
  if (document.readyState !== 'loading') return Promise.resolve(paint());
  return new Promise((resolve) => document.addEventListener('readystatechange', () => resolve(paint()), { once: true }));
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
