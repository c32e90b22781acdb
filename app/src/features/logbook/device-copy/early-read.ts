import { earlyPaintOf } from '../first-paint/early-paint-handle';
import { COPY_DB, COPY_STORE, HEAD_KEY, WHOLE_KEY } from './copy-database';
import { readHead, readWhole } from './copy-layout';
import type { KeptHead } from '../types';

let reading: Promise<KeptHead | null> | undefined;
let found: KeptHead | null | undefined;

/**
 * The newest part of the copy kept on this device, read once per page: the served page's inline script read it
 * already where it ran (first-paint/early-paint.ts), and the logbook's start-up (first-paint/start-up.ts) reads it
 * here otherwise, before any other script has loaded. Whoever read it painted what it found, and the visit's read
 * (reads/first-read.ts) plans from it instead of reading it again, reading the rest of a longer copy only then.
 */
export function readCopyEarly(): Promise<KeptHead | null> {
  const early = typeof window === 'undefined' ? undefined : earlyPaintOf(window);
  reading ??= (early === undefined ? readKeptHead() : early.then(({ kept }) => kept, () => null)).then((copy) => (found = copy));
  return reading;
}

/** The early read, once: a later visit of the logbook (after "Try again") reads the copy afresh. */
export function takeEarlyRead(): Promise<KeptHead | null> | undefined {
  const taken = reading;
  reading = undefined;
  return taken;
}

/** What the early read found, once it has settled (undefined before, or when none was started). */
export function earlyReadFound(): KeptHead | null | undefined {
  return found;
}

/**
 * Reads the head record of the copy kept on this device (copy-database.ts) with IndexedDB's own API (no library, so
 * the page's inline script and entry script can hold it). A copy of the older layout (one record) is read whole.
 * Never rejects: no IndexedDB, no copy yet, a layout this page does not know or an error all count as no copy. It
 * creates nothing: the copy store does that when it keeps one.
 */
export function readKeptHead(): Promise<KeptHead | null> {
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
      const done = (copy: KeptHead | null) => {
        db.close();
        resolve(copy);
      };
      if (!db.objectStoreNames.contains(COPY_STORE)) return done(null);
      try {
        const store = db.transaction(COPY_STORE).objectStore(COPY_STORE);
        // Both asked at once; their answers come in this order. A record of the older layout is the copy.
        const older = store.count(WHOLE_KEY);
        const head = store.get(HEAD_KEY);
        head.onsuccess = () => {
          if (older.result === 0) return done(readHead(head.result));
          const whole = store.get(WHOLE_KEY);
          whole.onsuccess = () => {
            const copy = readWhole(whole.result);
            done(copy && { ...copy, count: copy.entries.length });
          };
          whole.onerror = () => done(null);
        };
        head.onerror = () => done(null);
      } catch {
        done(null);
      }
    };
  });
}
