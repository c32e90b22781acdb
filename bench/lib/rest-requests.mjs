// @ts-check
// The REST requests a page makes while it loads, counted from the browser's request events, and when a load
// is over: the oldest entry painted, or (for a page that never shows it, e.g. one capped read) no REST request
// in flight and none for a quiet while after the first card.

/** Rows a page of the client asks for, and the server's default row cap on hosted Supabase. */
export const PAGE_SIZE = 1000;

/** How long without a REST request in flight counts as "the page has read all it is going to read". */
export const QUIET_MS = 1500;

/**
 * The one read beside the list a first visit makes: the newest change's cursor (`geocache_log_changes`), which the
 * device keeps so that its next visit learns the removals and restores made since. It is read when the list's read
 * starts, not after, so a change made while a long list is read is not missed.
 */
export const CHANGES_CURSOR_READS = 1;

/**
 * The most requests a load of `entries` rows may cost: one per full page, the page that ends the read, and the
 * changes cursor.
 * @param {number} entries
 * @param {number} [pageSize]
 */
export function requestBound(entries, pageSize = PAGE_SIZE) {
  return Math.ceil(entries / pageSize) + 1 + CHANGES_CURSOR_READS;
}

/** @param {string} url */
export function isRestRequest(url) {
  try {
    return new URL(url).pathname.startsWith('/rest/v1/');
  } catch {
    return false;
  }
}

/**
 * Counts REST requests (not CORS preflights: the browser sends those, not the page) and knows whether any is
 * in flight. Feed it Playwright's `request`, `requestfinished` and `requestfailed` events.
 */
export class RestRequestLog {
  /** @param {() => number} [clock] */
  constructor(clock = Date.now) {
    this.clock = clock;
    /** @type {Set<unknown>} */
    this.inFlight = new Set();
    this.started = 0;
    this.failed = 0;
    this.lastActivity = clock();
    this.counting = true;
  }

  /** @param {{ url(): string, method(): string }} request */
  #counts(request) {
    return request.method() !== 'OPTIONS' && isRestRequest(request.url());
  }

  /** @param {{ url(): string, method(): string }} request */
  onRequest(request) {
    if (!this.counting || !this.#counts(request)) return;
    this.started += 1;
    this.inFlight.add(request);
    this.lastActivity = this.clock();
  }

  /** @param {{ url(): string, method(): string }} request */
  onFinished(request) {
    if (!this.inFlight.delete(request)) return;
    this.lastActivity = this.clock();
  }

  /** @param {{ url(): string, method(): string }} request */
  onFailed(request) {
    if (!this.inFlight.has(request)) return;
    this.failed += 1;
    this.onFinished(request);
  }

  /** Stops counting new requests (the load is over; what follows, e.g. a sign, is not part of it). */
  stop() {
    this.counting = false;
  }

  /**
   * Whether the load is over without the oldest entry painted: a card is painted, at least one REST request
   * was made, none is in flight and none was for `quietMs`.
   * @param {{ firstCardPainted: number | null }} marks
   * @param {number} [quietMs]
   */
  quietAfterFirstCard(marks, quietMs = QUIET_MS) {
    return (
      marks.firstCardPainted !== null && this.started > 0 && this.inFlight.size === 0 && this.clock() - this.lastActivity >= quietMs
    );
  }
}
