import { readKeptHead } from '../device-copy/early-read';
import { plainRows } from '../device-copy/plain-rows';
import type { EarlyPaint } from './early-paint-handle';
import { preloadFirstVisit, type FirstVisitFiles } from './first-visit-files';
import { paintEntries } from './paint-entries';

/** Settles once the document is parsed (its served list exists), before the deferred scripts run. */
function parsed(document: Document): Promise<void> {
  if (document.readyState !== 'loading') return Promise.resolve();
  return new Promise((resolve) => document.addEventListener('readystatechange', () => resolve(), { once: true }));
}

/**
 * Reads the copy kept on this device and paints its newest entries into the served list as soon as both are there:
 * the work of the open logbook's one inline script (inline-script.ts), which the parser runs before it has read the
 * rest of the page. On a phone, the page's scripts are fetched, compiled and run only after the whole document is
 * parsed; the read runs meanwhile, so a repeat visit shows its entries as soon as the list exists. A visit with
 * nothing to paint asks for `firstVisit`'s files instead, which its first entries come from. Never rejects: an
 * entry that cannot be shown is React's to report, as it renders the same list.
 */
export async function startEarlyPaint(document: Document, firstVisit: FirstVisitFiles): Promise<EarlyPaint> {
  performance.mark('geocache:device-copy-read-started');
  const kept = await readKeptHead();
  performance.mark('geocache:device-copy-read');
  if (kept === null) {
    preloadFirstVisit(document, firstVisit);
    return { kept, painted: false };
  }
  await parsed(document);
  const root = document.getElementById('root');
  let painted = false;
  try {
    painted = root !== null && paintEntries(root, plainRows(kept.entries));
  } catch {
    painted = false;
  }
  if (painted) performance.mark('geocache:kept-entries-painted');
  else preloadFirstVisit(document, firstVisit);
  return { kept, painted };
}
