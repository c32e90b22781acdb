import { loadClientCode, loadedClientCode } from './client-code';
import type { EntryList, EntryRows } from '../types';

/** One read of every entry, page by page, that can be taken over by whoever shows it after it started. */
export interface EntryPages {
  /**
   * Hands `onPage` the newest list so far at once (if a page has arrived) and every later one. Only one
   * subscriber: a read started early (prefetch) is shown by one list.
   */
  subscribe(onPage: (entriesSoFar: EntryList) => void): void;
  /**
   * Hands `onFirst` the first page, during the call that delivers it (its rows are read then: the list may be freed
   * once the call returns), whether or not anyone has subscribed; once, and never if the read delivers no page. The
   * logbook's start-up paints it before React has loaded (first-paint/start-up.ts). Must be called before the first
   * page arrives (the read waits for the wasm client's code, which loads after this is called): a page that came
   * before is not handed over.
   */
  onFirstPage(onFirst: (firstPage: EntryRows) => void): void;
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
  let firstWatcher: ((firstPage: EntryRows) => void) | undefined;
  let delivered = false;
  const onPage = (entriesSoFar: EntryList) => {
    if (!delivered) {
      delivered = true;
      // Before the subscriber, who may free the list later; a watcher's error must not cut the read short.
      try {
        firstWatcher?.(entriesSoFar);
      } catch (error) {
        console.error('Error painting the first entries:', error);
      }
      firstWatcher = undefined;
    }
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
    onFirstPage(onFirst) {
      if (firstWatcher) throw new Error('these entry pages already have a first-page watcher');
      if (!delivered) firstWatcher = onFirst;
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
