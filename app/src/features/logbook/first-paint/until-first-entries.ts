/**
 * How long the page waits for its first entries before it loads React anyway: the client's own default request
 * timeout, after which a read that never answered has failed and the logbook reports it.
 */
export const FIRST_ENTRIES_DEADLINE_MS = 30_000;

/** What the first entries shown before React may come from, each settling once it has painted them or will not. */
export interface FirstEntries {
  /** True once the entries kept on this device were painted (a repeat visit); false when there were none to paint. */
  readonly kept: Promise<boolean>;
  /** Settles once the read from the network has painted its first page, or will not (error, empty logbook, catch-up read). */
  readonly read: Promise<unknown>;
}

/**
 * Settles when the page should load what the first entries do not need (React, the logbook's code, the service
 * worker, the manifest): once the first entries were painted (the device's copy on a repeat visit, the first page
 * read on a first visit), as soon as the read settled without painting any, or after `deadlineMs` at the latest.
 * Those downloads would otherwise share a phone's slow network with the wasm client and the first page, and delay
 * the entries; on a repeat visit the kept entries are painted before anything has been downloaded, so nothing
 * waits there. A copy that was not painted settles nothing: the read decides then. Never rejects.
 */
export function untilFirstEntries({ kept, read }: FirstEntries, deadlineMs: number = FIRST_ENTRIES_DEADLINE_MS): Promise<void> {
  return new Promise((resolve) => {
    const deadline = setTimeout(resolve, deadlineMs);
    const settle = () => {
      clearTimeout(deadline);
      resolve();
    };
    kept.then(
      (painted) => {
        if (painted) settle();
      },
      () => undefined,
    );
    read.then(settle, settle);
  });
}
