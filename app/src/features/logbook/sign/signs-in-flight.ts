let inFlight = 0;
let waiting: (() => void)[] = [];

/**
 * Counts a sign as in flight until the returned function is called (once; later calls do nothing). What a visit does
 * not need for reading and signing (the service worker's precache, the live entries' wasm, the manifest) waits for
 * none to be in flight, so it does not share a weak link with one.
 */
export function beginSign(): () => void {
  inFlight += 1;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    inFlight -= 1;
    if (inFlight > 0) return;
    const resolve = waiting;
    waiting = [];
    for (const done of resolve) done();
  };
}

/** Settles once no sign is in flight: at once when none is. */
export function untilNoSignInFlight(): Promise<void> {
  return inFlight === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve));
}
