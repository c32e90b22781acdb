import { loadClientCode, loadedClientCode } from './client-code';
import type { EntryList } from './entry-types';

/** One read of every entry, page by page, that can be taken over by whoever shows it after it started. */
export interface EntryPages {
  /**
   * Hands `onPage` the newest list so far at once (if a page has arrived) and every later one. Only one
   * subscriber: a read started early (prefetch) is shown by one list.
   */
  subscribe(onPage: (entriesSoFar: EntryList) => void): void;
  /** Every entry; rejects with the client's error (for a later page, after the earlier ones were delivered). */
  readonly done: Promise<EntryList>;
}

/**
 * Starts reading every entry, or once `since` settles to a timestamp, only those created at or after it (the
 * same order and pages). Until someone subscribes, only the newest list so far is kept; older ones are freed.
 */
export function startEntryPages(since?: Promise<string | undefined>): EntryPages {
  let waiting: EntryList | undefined;
  let subscriber: ((entriesSoFar: EntryList) => void) | undefined;
  const onPage = (entriesSoFar: EntryList) => {
    if (subscriber) return subscriber(entriesSoFar);
    // Never shown: its wasm memory is given back at once.
    if (waiting !== undefined && waiting !== entriesSoFar) waiting.free();
    waiting = entriesSoFar;
  };
  const done = readEntries(onPage, since);
  // Until a subscriber takes it over, a rejection must not count as unhandled.
  done.catch(() => undefined);
  return {
    subscribe(next) {
      if (subscriber) throw new Error('these entry pages already have a subscriber');
      subscriber = next;
      const first = waiting;
      waiting = undefined;
      if (first !== undefined) next(first);
    },
    done,
  };
}

/** Rejects with the client's error, a client-creation failure and a failed load of its code included. */
async function readEntries(onPage: (entriesSoFar: EntryList) => void, since?: Promise<string | undefined>): Promise<EntryList> {
  // The client's code loads while the device's copy is read: neither waits for the other.
  const code = loadClientCode();
  // Its failure is the caller's once awaited below, not an unhandled rejection while the copy is read.
  code.catch(() => undefined);
  // Without a `since` to wait for, the read starts as soon as the client is there.
  const from = since === undefined ? undefined : await since;
  const { getClient } = loadedClientCode() ?? (await code);
  // Awaited inside the async function so a client-creation failure becomes a rejection too.
  return await getClient().listEntries(from === undefined ? { onPage } : { onPage, since: from });
}
