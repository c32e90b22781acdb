import { COPY_DB, COPY_STORE, HEAD_KEY, WHOLE_KEY } from './copy-database';
import { readHead, readWhole, type KeptHead } from './copy-layout';

let reading: Promise<KeptHead | null> | undefined;
let found: KeptHead | null | undefined;

/**
 * Reads the newest part of the copy kept on this device once (its head record: copy-database.ts), with IndexedDB's
 * own API (no library, so the page's entry script can hold it): main.tsx starts it before any other script has
 * loaded, paints what it finds, and the visit's read (api/visit-read.ts) plans from it instead of reading it again,
 * reading the rest of a longer copy only then. A copy of the older layout (one record) is read whole. Never
 * rejects: no IndexedDB, no copy yet, a layout this page does not know or an error all count as no copy. It creates
 * nothing: the copy store does that when it keeps one.
 */
export function readCopyEarly(): Promise<KeptHead | null> {
  reading ??= readCopy().then((copy) => (found = copy));
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

function readCopy(): Promise<KeptHead | null> {
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
