import { startEntryPages, type EntryPages } from './entry-pages';

let prefetched: EntryPages | undefined;

/**
 * Starts the first read as soon as the client is ready, before React has rendered the logbook; the
 * logbook's first load takes it over, pages already read included (an error then reaches the same
 * console.error).
 */
export function prefetchLogEntries(): void {
  prefetched ??= startEntryPages();
}

/** The prefetched read, once: later loads read afresh. */
export function takePrefetched(): EntryPages | undefined {
  const taken = prefetched;
  prefetched = undefined;
  return taken;
}
