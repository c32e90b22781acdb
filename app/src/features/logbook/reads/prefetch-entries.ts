import { startFirstRead, type FirstRead } from './first-read';

let prefetched: FirstRead | undefined;

/**
 * Starts the visit's read (the device's copy, then the entries it lacks, once the client is ready) before React has
 * rendered the logbook; the logbook's reads take it over when they open, pages already read included (an error then
 * reaches the same console.error).
 */
export function prefetchLogEntries(): FirstRead {
  prefetched ??= startFirstRead();
  return prefetched;
}

/** The prefetched read, if one is waiting to be taken over (not taking it). */
export function peekPrefetched(): FirstRead | undefined {
  return prefetched;
}

/** The prefetched read, once: later loads read afresh. */
export function takePrefetched(): FirstRead | undefined {
  const taken = prefetched;
  prefetched = undefined;
  return taken;
}
