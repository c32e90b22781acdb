// A visitor's session on the open logbook while the emulator injects faults: signs and reloads, waiting for what the
// page reports rather than for fixed times, and a journal of what the page requested and logged to decide what the
// page must show after each step.
import type { ConsoleMessage, Page, Request } from '@playwright/test';
import { expect, logbookPage } from './fixtures.ts';
import { TABLE_PATH } from './fault-plan.ts';

export interface Entry {
  name: string;
  message: string;
}

export type SignOutcome = 'success' | 'failure';

/**
 * What a sign's outcome says about its entry: "stored" (reported a success), "not stored" (failed, every attempt
 * refused) or "unknown" (failed after an attempt that went unanswered or ended in a 5xx: stored at most once).
 */
export type Stored = 'stored' | 'not stored' | 'unknown';

/** Every sign in signing order, with what its outcome says about its entry. */
export interface Attempt {
  entry: Entry;
  stored: Stored;
}

/** How a faulted list read ends: retried until it loads, or reported with the list kept. */
export type Loads = 'retried' | 'not retried';

/**
 * What a table request was for: the page's two list reads ("all": the whole list, or on a visit with a copy kept on
 * the device, the entries newer than that copy, which the page merges into it; "newest": its first screen),
 * any other read (a sign sends none), or an insert (a sign's first attempt or a resend with the same key).
 */
export type CallKind = 'all' | 'newest' | 'other read' | 'insert';

interface TableCall {
  kind: CallKind;
  /** Which document sent it: counts main-frame navigations, so a reload starts a new life. */
  life: number;
  /** Its place in the journal when it was sent, and when it ended (undefined until then). */
  sentAt: number;
  endedAt?: number;
  /**
   * "ok": a 2xx (for reads, with a JSON array body); "bad": anything else, network failures included; "unread": a
   * read that finished but whose body the test could no longer fetch, because the page navigated first (what the
   * page made of it is unknown, and it belonged to a document the test no longer waits on).
   */
  result?: 'ok' | 'bad' | 'unread';
  /** For a network failure, Chromium's error (net::ERR_ABORTED for a request the page or a navigation cancelled). */
  failure?: string;
  /** For an insert, its Idempotency-Key header. */
  key?: string;
  /** For an insert, its X-Retry-Count header (absent on the first attempt). */
  retryCount?: string;
}

/** The error a console.error call passed, as plain data (read when it was logged: a reload destroys it). */
export interface LoggedError {
  isError: boolean;
  name: string;
  code: unknown;
  status: unknown;
  /** A failed sign's `outcome` and `idempotencyKey` (undefined for other errors). */
  outcome?: unknown;
  idempotencyKey?: unknown;
}

interface ConsoleLine {
  life: number;
  at: number;
  /** The page's label, e.g. "Error fetching logs:". */
  label: string;
  error: Promise<LoggedError>;
}

export const FETCH_ERROR = 'Error fetching logs:';
export const INSERT_ERROR = 'Error inserting log:';

/**
 * How many whole-list reads one page load sends in the dev project: the prefetch started by main.tsx, taken by the
 * logbook's first mount, and a second load from StrictMode's repeated mount effect (which the page then shows).
 */
const WHOLE_LIST_READS_PER_PAGE_LOAD = 2;

/**
 * A hang guard: a read's three retries (1 + 2 + 4 s back-off) plus a few short request timeouts, with room for a busy
 * machine that serves and paints each of them slowly.
 */
const SETTLE_TIMEOUT_MS = 60_000;

function callKind(request: Request): CallKind | undefined {
  const url = new URL(request.url());
  if (url.pathname !== TABLE_PATH) return undefined;
  if (request.method() === 'POST') return 'insert';
  if (request.method() !== 'GET') return undefined;
  const params = [...url.searchParams.keys()].sort().join(',');
  const select = url.searchParams.get('select') === '*';
  const order = url.searchParams.get('order');
  // The whole list is read in keyset pages (newest first, ties by id; later pages add an `or` cursor); a visit with a
  // copy on the device reads the same pages from a minute before its newest entry (`created_at=gte.`).
  const keyset = params === 'limit,order,select' || params === 'limit,or,order,select';
  const newer = (params === 'created_at,limit,order,select' || params === 'created_at,limit,or,order,select') && url.searchParams.get('created_at')?.startsWith('gte.');
  if (select && order === 'created_at.desc,id.desc' && (keyset || newer)) return 'all';
  if (select && order === 'created_at.desc' && params === 'limit,order,select') return 'newest';
  return 'other read';
}

/** The entries the page shows, top to bottom. */
export async function shownEntries(page: Page): Promise<(Entry & { createdAt: string })[]> {
  const cards = await page.getByTestId('log-entry').evaluateAll((elements) =>
    elements.map((card) => ({
      index: Number(card.getAttribute('data-index')),
      name: card.querySelector('.entry-name')?.textContent ?? '',
      message: card.querySelector('.entry-message')?.textContent ?? '',
      createdAt: card.querySelector('time')?.getAttribute('datetime') ?? '',
    })),
  );
  return cards.sort((a, b) => a.index - b.index).map(({ name, message, createdAt }) => ({ name, message, createdAt }));
}

async function shownTexts(page: Page): Promise<Entry[]> {
  return (await shownEntries(page)).map(({ name, message }) => ({ name, message }));
}

/** Newest first, as the page must show them. */
function newestFirst(entries: readonly Entry[]): Entry[] {
  return [...entries].reverse();
}

export class FaultSession {
  readonly page: Page;
  /** Every entry whose sign the page reported as a success, in signing order. */
  readonly signed: Entry[] = [];
  /** Every sign, successful or not, in signing order. */
  readonly attempts: Attempt[] = [];
  /** How each load the test waited for ended, in order: the page's own reloads after signs and page loads. */
  readonly loads: ('loaded' | 'failed')[] = [];
  /**
   * The lists the page showed at the end of each load so far. The device copy is written when the browser is idle
   * after a paint, so a page reloaded before that moment keeps an earlier list than the one it showed last.
   */
  private readonly shownAfterLoads: Entry[][] = [];
  private readonly calls: TableCall[] = [];
  private readonly lines: ConsoleLine[] = [];
  private life = 0;
  private journal = 0;
  private readonly started = Date.now();
  /** Milliseconds since the session started, per journal position: for the journal's text. */
  private readonly times: number[] = [];

  constructor(page: Page) {
    this.page = page;
    const sent = new Map<Request, TableCall>();
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.life += 1;
    });
    page.on('request', (request) => {
      const kind = callKind(request);
      if (kind === undefined) return;
      const call: TableCall = { kind, life: this.life, sentAt: this.tick() };
      if (kind === 'insert') {
        const headers = request.headers();
        Object.assign(call, { key: headers['idempotency-key'], retryCount: headers['x-retry-count'] });
      }
      sent.set(request, call);
      this.calls.push(call);
    });
    page.on('requestfailed', (request) => {
      const call = sent.get(request);
      if (call) Object.assign(call, { endedAt: this.tick(), result: 'bad', failure: request.failure()?.errorText });
    });
    page.on('requestfinished', (request) => {
      const call = sent.get(request);
      if (!call) return;
      const endedAt = this.tick();
      void judge(request, call.kind).then((result) => Object.assign(call, { endedAt, result }));
    });
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const label = [FETCH_ERROR, INSERT_ERROR].find((candidate) => message.text().startsWith(candidate));
      if (label === undefined) return;
      const error = loggedError(message);
      // Awaited by `loggedErrors`; until then a failure must not count as unhandled.
      error.catch(() => undefined);
      this.lines.push({ life: this.life, at: this.tick(), label, error });
    });
  }

  /** The next journal position. */
  private tick(): number {
    this.journal += 1;
    this.times[this.journal] = Date.now() - this.started;
    return this.journal;
  }

  /** Milliseconds since the journal position `at` (none yet: none). */
  private msSince(at: number | undefined): number {
    return at === undefined ? 0 : Date.now() - this.started - (this.times[at] ?? 0);
  }

  /** Records, in every document of the page, each change in the number of entry cards. */
  static async sampleCardCounts(page: Page): Promise<void> {
    await page.addInitScript(() => {
      const counts: number[] = [];
      (window as unknown as { __cardCounts: number[] }).__cardCounts = counts;
      new MutationObserver(() => {
        const count = document.querySelectorAll('[data-testid="log-entry"]').length;
        if (counts[counts.length - 1] !== count) counts.push(count);
      }).observe(document, { childList: true, subtree: true });
    });
  }

  /** The card counts this document has shown so far, in order (see `sampleCardCounts`). */
  async cardCounts(): Promise<number[]> {
    return this.page.evaluate(() => (window as unknown as { __cardCounts?: number[] }).__cardCounts ?? []);
  }

  /** How many console.error calls with a label the page made after journal position `since` (all documents). */
  private loggedLabels(label: typeof FETCH_ERROR | typeof INSERT_ERROR, since = 0): number {
    return this.lines.filter((line) => line.label === label && line.at > since).length;
  }

  /** The errors logged with a label, in order. */
  async loggedErrors(label: typeof FETCH_ERROR | typeof INSERT_ERROR): Promise<LoggedError[]> {
    return Promise.all(this.lines.filter((line) => line.label === label).map((line) => line.error));
  }

  fetchErrors(since = 0): number {
    return this.loggedLabels(FETCH_ERROR, since);
  }

  insertErrors(since = 0): number {
    return this.loggedLabels(INSERT_ERROR, since);
  }

  /** Table requests of the given kind sent after `since` by the current document. */
  sent(kind: CallKind, since = 0): TableCall[] {
    return this.calls.filter((call) => call.kind === kind && call.life === this.life && call.sentAt > since);
  }

  /** Inserts the page saw fail (an error status or a network failure), every document. */
  failedInserts(): number {
    return this.calls.filter((call) => call.kind === 'insert' && call.result === 'bad').length;
  }

  /** All table requests of a kind, every document: for checks on the order in which answers arrived. */
  allSent(kind: CallKind): readonly TableCall[] {
    return this.calls.filter((call) => call.kind === kind);
  }

  /** The table requests and logged errors so far, one line each in journal order: attached to failed tests. */
  journalText(): string {
    const events = [
      ...this.calls.map((call) => ({ at: call.sentAt, text: `life ${call.life} sent ${call.kind}` })),
      ...this.calls.map((call) => ({
        at: call.endedAt ?? Infinity,
        text: `life ${call.life} ended ${call.kind} (sent at ${call.sentAt}): ${call.result ?? 'unanswered'}${call.failure ? ` ${call.failure}` : ''}`,
      })),
      ...this.lines.map((line) => ({ at: line.at, text: `life ${line.life} logged ${line.label}` })),
    ];
    return events
      .sort((a, b) => a.at - b.at)
      .map((event) => `${event.at} ${this.times[event.at] ?? '-'} ms: ${event.text}`)
      .join('\n');
  }

  /**
   * Reads the page saw fail: an error status, a bad body or a network failure (not counting requests cancelled by
   * a reload, reads whose body was gone before the test could judge it, nor Chromium's own resends, which the page
   * never sees).
   */
  failedReads(): number {
    return this.readFailures().length;
  }

  /** How each read counted by `failedReads` failed: Chromium's network error, or "an answer" (a status or a body). */
  readFailures(): string[] {
    return this.calls
      .filter((call) => call.kind !== 'insert' && call.result === 'bad' && call.failure !== 'net::ERR_ABORTED')
      .map((call) => call.failure ?? 'an answer');
  }

  /**
   * The entries the table must hold, in signing order, given the entries it does hold (`present`): every successful
   * sign, and a failed sign whose outcome is unknown if it is there; never a sign that was not stored. Each entry is
   * distinct, so comparing this with the table also proves each is held once.
   */
  expectedStored(present: readonly Entry[]): Entry[] {
    const held = (entry: Entry) => present.some((row) => row.name === entry.name && row.message === entry.message);
    return this.attempts.filter(({ entry, stored }) => stored === 'stored' || (stored === 'unknown' && held(entry))).map(({ entry }) => entry);
  }

  /** The failed signs whose outcome is unknown. */
  unknownSigns(): Entry[] {
    return this.attempts.filter(({ stored }) => stored === 'unknown').map(({ entry }) => entry);
  }

  /** Opens the logbook and waits for its first load (see `reload`). */
  async open(loads: Loads): Promise<void> {
    const since = this.journal;
    const before = await shownTexts(this.page);
    await this.page.goto('/');
    await this.settlePageLoad(since, before, loads);
  }

  /**
   * Signs through the form and waits until the page reports the outcome: the fields cleared (success), or the
   * typed text kept with "Error inserting log:" logged (failure).
   */
  async sign(entry: Entry): Promise<{ outcome: SignOutcome; since: number }> {
    const logbook = logbookPage(this.page);
    await logbook.name.fill(entry.name);
    await logbook.message.fill(entry.message);
    const since = this.journal;
    await logbook.submit.click();
    let outcome: SignOutcome | 'pending' = 'pending';
    await expect
      .poll(
        async () => {
          const [name, message, enabled] = [await logbook.name.inputValue(), await logbook.message.inputValue(), await logbook.submit.isEnabled()];
          if (name === '' && message === '') outcome = 'success';
          else if (enabled && this.insertErrors(since) > 0 && name === entry.name && message === entry.message) outcome = 'failure';
          return outcome;
        },
        { timeout: 45_000, intervals: [50], message: `the page reports the sign of ${entry.name} as a success or a failure` },
      )
      .not.toBe('pending');
    const reported = outcome as SignOutcome;
    if (reported === 'success') {
      expect(this.insertErrors(since), `${entry.name}: a success logs no insert error`).toBe(0);
      this.signed.push(entry);
      // The page sends the unchanged text of the sign that just failed with that sign's key: the same sign, now stored.
      const last = this.attempts.at(-1);
      if (last?.entry.name === entry.name && last.entry.message === entry.message) this.attempts.pop();
      this.attempts.push({ entry, stored: 'stored' });
    } else {
      expect(this.insertErrors(since), `${entry.name}: a failure logs "Error inserting log:" once`).toBe(1);
      const logged = await (this.lines.filter((line) => line.label === INSERT_ERROR).at(-1) as ConsoleLine).error;
      expect(['not_stored', 'unknown'], `${entry.name}: the failure's outcome`).toContain(logged.outcome);
      this.attempts.push({ entry, stored: logged.outcome === 'unknown' ? 'unknown' : 'not stored' });
    }
    return { outcome: reported, since };
  }

  /**
   * After a sign of `entry` (from journal position `since`): a success reloads the list, a failure leaves it as it
   * was. "retried": the load must end showing every successful entry. "not retried": the load's whole-list read
   * decides: a good one shows every entry, a bad one is logged and leaves the list as it was before the sign, with the
   * sign on top when its insert's answer held the stored row (a resend of a sign already stored gets none).
   */
  async settleAfterSign(outcome: SignOutcome, since: number, before: Entry[], loads: Loads, entry: Entry): Promise<void> {
    if (outcome === 'failure') {
      expect(await shownTexts(this.page), 'a failed sign leaves the list as it was').toEqual(before);
      return;
    }
    const insert = this.sent('insert', since).at(-1);
    if (insert === undefined) throw new Error('a successful sign sent no insert');
    const signed = { name: entry.name, message: entry.message };
    await this.settle({ since: insert.sentAt, wholeListReads: 1, kept: [before, [signed, ...before]], loads, what: 'the reload after a sign' });
  }

  /**
   * Reloads the page and waits for its load. "not retried": if the list read fails, the error is logged and the page
   * shows what it kept on the device: a list an earlier load showed whole (the copy of the last read whose copy was
   * written: usually the list shown before the reload, an earlier one when the reload came before the browser was
   * idle enough to write it), or nothing when it has no copy.
   */
  async reload(loads: Loads): Promise<void> {
    const since = this.journal;
    const before = await shownTexts(this.page);
    await this.page.reload();
    await this.settlePageLoad(since, before, loads);
  }

  private async settlePageLoad(since: number, before: Entry[], loads: Loads): Promise<void> {
    await expect(logbookPage(this.page).heading).toBeVisible();
    await this.settle({ since, wholeListReads: WHOLE_LIST_READS_PER_PAGE_LOAD, kept: [before, [], ...this.shownAfterLoads], loads, what: 'a page load' });
  }

  /**
   * Waits until a load has ended: its whole-list reads answered and nothing else of this document in flight (so the
   * next step does not cancel a read half-way), and the page showing what the latest whole-list answer implies.
   * `kept`: the lists a failed load may leave shown, by design.
   */
  private async settle({ since, wholeListReads, kept, loads, what }: { since: number; wholeListReads: number; kept: Entry[][]; loads: Loads; what: string }) {
    // The poll's value says why it is still waiting, so a timeout reports what the page was doing.
    const state = async (): Promise<string> => {
      const reads = this.sent('all', since);
      const shown = await shownTexts(this.page);
      const latest = reads.at(-1);
      const inFlight = this.calls.filter((call) => call.life === this.life && call.result === undefined).length;
      const seen = `pending: ${reads.length} whole-list reads (${reads.map((read) => read.result ?? 'unanswered').join(', ')}), ${inFlight} in flight, ${this.fetchErrors(since)} fetch errors, shown [${shown.map((entry) => entry.name).join(', ')}]`;
      if (reads.length < wholeListReads || latest === undefined || inFlight > 0) return seen;
      const everyEntryShown = equal(shown, newestFirst(this.expectedStored(shown)));
      if (latest.result === 'ok' && everyEntryShown) return 'loaded';
      // A good latest read may belong to a load already superseded (the dev server's strict mode starts two loads, and
      // one's later page can be sent after the other's failed first): give the page a second to show it first.
      if (latest.result === 'ok' && this.msSince(latest.endedAt) < 1000) return seen;
      // A retried read may fail and be sent again: only a logged error ends the load then.
      if (loads === 'retried' && this.fetchErrors(since) === 0) return seen;
      // A failed page leaves what is shown: the list from before the load, or the pages read before the failed one,
      // which here (fewer entries than a page) already hold every entry.
      const freshPagesShown = reads.some((read) => read.result === 'ok') && everyEntryShown;
      return this.fetchErrors(since) > 0 && (kept.some((list) => equal(shown, list)) || freshPagesShown) ? 'failed' : seen;
    };
    let settled = '';
    await expect
      .poll(async () => (settled = await state()), { timeout: SETTLE_TIMEOUT_MS, message: `${what}: every entry shown, or the failed load logged and the list kept` })
      .toMatch(/^(loaded|failed)$/);
    if (loads === 'retried') expect(settled, `${what}: retried reads end in a load that shows every entry`).toBe('loaded');
    this.loads.push(settled === 'failed' ? 'failed' : 'loaded');
    this.shownAfterLoads.push(await shownTexts(this.page));
  }
}

async function loggedError(message: ConsoleMessage): Promise<LoggedError> {
  const handle = message.args()[1];
  if (handle === undefined) throw new Error(`the console call had no error argument: ${message.text()}`);
  return handle.evaluate((value: unknown) => ({
    isError: value instanceof Error,
    name: value instanceof Error ? value.name : typeof value,
    code: (value as { code?: unknown }).code,
    status: (value as { status?: unknown }).status,
    outcome: (value as { outcome?: unknown }).outcome,
    idempotencyKey: (value as { idempotencyKey?: unknown }).idempotencyKey,
  }));
}

async function judge(request: Request, kind: CallKind): Promise<'ok' | 'bad' | 'unread'> {
  const response = await request.response();
  if (response === null || response.status() < 200 || response.status() > 299) return 'bad';
  if (kind === 'insert') return 'ok';
  // The body is fetched from the browser after the request finished: a read the page sent just before the test
  // reloaded it can finish in time for this event and still be gone from the browser by then.
  let body: string;
  try {
    body = (await response.body()).toString('utf8');
  } catch {
    return 'unread';
  }
  try {
    return Array.isArray(JSON.parse(body)) ? 'ok' : 'bad';
  } catch {
    return 'bad';
  }
}

function equal(shown: Entry[], expected: Entry[]): boolean {
  return JSON.stringify(shown) === JSON.stringify(expected);
}
