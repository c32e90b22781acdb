import { COPY_DB, COPY_KEY, COPY_STORE } from './copy-database';
import type { KeptCopy } from './copy-store';

let reading: Promise<KeptCopy | null> | undefined;
let found: KeptCopy | null | undefined;

/**
 * Reads the copy kept on this device once, with IndexedDB's own API (no library, so the page's entry script can
 * hold it): main.tsx starts it before any other script has loaded, paints what it finds, and the visit's read
 * (api/visit-read.ts) plans from it instead of reading again. Never rejects: no IndexedDB, no copy yet, an older
 * copy's layout or an error all count as no copy. It creates nothing: the copy store does that when it keeps one.
 */
export function readCopyEarly(): Promise<KeptCopy | null> {
  reading ??= readCopy().then((copy) => (found = copy));
  return reading;
}

/** The early read, once: a later visit of the logbook (after "Try again") reads the copy afresh. */
export function takeEarlyRead(): Promise<KeptCopy | null> | undefined {
  const taken = reading;
  reading = undefined;
  return taken;
}

/** What the early read found, once it has settled (undefined before, or when none was started). */
export function earlyReadFound(): KeptCopy | null | undefined {
  return found;
}

function readCopy(): Promise<KeptCopy | null> {
  return new Promise((resolve) => {
    if (typeof indexedDB === 'undefined') return resolve(null);
    let open: IDBOpenDBRequest;
    try {
      // No version: an existing copy opens as it is, never upgraded from here.
      open = indexedDB.open(COPY_DB);
    } catch {
      return resolve(null);
    }
    // No database yet: creating one is the copy store's job, with its own layout.
    open.onupgradeneeded = () => open.transaction?.abort();
    open.onerror = () => resolve(null);
    open.onblocked = () => resolve(null);
    open.onsuccess = () => {
      const db = open.result;
      const done = (copy: KeptCopy | null) => {
        db.close();
        resolve(copy);
      };
      if (!db.objectStoreNames.contains(COPY_STORE)) return done(null);
      try {
        const read = db.transaction(COPY_STORE).objectStore(COPY_STORE).get(COPY_KEY);
        read.onsuccess = () => done(keptCopy(read.result));
        read.onerror = () => done(null);
      } catch {
        done(null);
      }
    };
  });
}

/** The stored record as a copy, or null when it is not one (a layout this page does not know). */
function keptCopy(stored: unknown): KeptCopy | null {
  if (typeof stored !== 'object' || stored === null) return null;
  const { entries, updatedAt, reconciledAt } = stored as Partial<KeptCopy>;
  if (!Array.isArray(entries) || typeof updatedAt !== 'number' || typeof reconciledAt !== 'number') return null;
  return { entries, updatedAt, reconciledAt };
}
