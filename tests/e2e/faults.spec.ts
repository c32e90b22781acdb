// Signing and reloading while the emulator injects one kind of fault at a time (issue 6): afterwards the table holds
// exactly the entries whose sign the page reported as a success, each once, and the page shows them newest first.
// Every rule is deterministic (every Nth matching request, or a limit) and scoped to the table, so a run repeats.
//
// What one step sends (dev server): a sign reads a watermark (GET ...?select=id&order=id.desc&limit=1), inserts
// (POST) and, on success, the page reloads its list (GET newest 30 + GET all); a page load sends the list's two
// reads twice (the prefetch, then StrictMode's second mount, whose answers the page shows).
import type { Stack } from './fixtures.ts';
import { expect, test as base } from './fixtures.ts';
import { faultControl, readTable, TABLE_PATH, type Fault, type FaultControl, type FaultRule, type StoredEntry } from './fault-plan.ts';
import { FaultSession, FETCH_ERROR, INSERT_ERROR, shownEntries, type Entry, type Loads, type SignOutcome } from './fault-session.ts';

/** Each test's visitor, with its journal of requests and errors attached when the test fails. */
const test = base.extend<{ session: FaultSession }>({
  session: async ({ page }, use, testInfo) => {
    await FaultSession.sampleCardCounts(page);
    const session = new FaultSession(page);
    await use(session);
    if (testInfo.status !== testInfo.expectedStatus) {
      await testInfo.attach('requests and errors', { body: session.journalText(), contentType: 'text/plain' });
    }
  },
});

test.skip(({ pageServer }) => pageServer === 'production', 'the faults test the client, which both builds share: dev server only');

// Tall enough that the virtualised list renders every card of a run.
test.use({ viewport: { width: 1000, height: 2400 } });

const TABLE = [TABLE_PATH];
const SIGNS = 6;

interface Loop {
  loads: Loads;
  signs?: number;
  /** The plan for one sign and the page reload after it, installed before the sign (counters start afresh). */
  rulesForSign?: (sign: number) => FaultRule[];
  /** The outcome the fault decides for a sign (undefined: either outcome may be reported). */
  outcome?: (sign: number) => SignOutcome | undefined;
  /** Reads the table after every sign: only for plans that cannot match the service role's GET. */
  tableAfterEachSign?: boolean;
}

interface Run {
  outcomes: SignOutcome[];
  /** When each sign was submitted (ms since the epoch). */
  submittedAt: number[];
  /** Per rule of a `rulesForSign` plan, how often it fired, summed over the signs. */
  fired: number[];
}

/** A distinct entry per sign, so "each once" and "no others" can be told apart. */
function entryFor(title: string, sign: number): Entry {
  return { name: `Cacher ${sign}`, message: `${title}: sign ${sign} (${Math.random().toString(36).slice(2, 10)})` };
}

/**
 * Opens the logbook, then signs `loop.signs` times, after every sign waiting for the page's own reload of the list
 * and reloading the page. Checks along the way what each step must show; returns what each sign reported.
 */
async function signAndReload(title: string, stack: Stack, session: FaultSession, loop: Loop): Promise<Run> {
  const { page } = session;
  const faults = faultControl(stack.emulator);
  const run: Run = { outcomes: [], submittedAt: [], fired: [] };
  const countFired = async () => {
    for (const [index, rule] of (await faults.stats()).entries()) run.fired[index] = (run.fired[index] ?? 0) + rule.fired;
  };
  await session.open(loop.loads);
  for (let sign = 1; sign <= (loop.signs ?? SIGNS); sign += 1) {
    if (loop.rulesForSign) {
      await countFired();
      await faults.install({ seed: sign, rules: loop.rulesForSign(sign) });
    }
    const before = (await shownEntries(page)).map(({ name, message }) => ({ name, message }));
    const entry = entryFor(title, sign);
    run.submittedAt.push(Date.now());
    const { outcome, since } = await session.sign(entry);
    run.outcomes.push(outcome);
    const expected = loop.outcome?.(sign);
    if (expected !== undefined) expect(outcome, `sign ${sign}: the outcome the fault decides`).toBe(expected);
    // Inserts are never retried by the client: one POST per sign whatever happened to it (a resend by Chromium
    // itself on a reused connection is not a new request to the page).
    const inserts = session.sent('insert', since).length;
    expect(inserts, `sign ${sign}: POSTs sent`).toBeLessThanOrEqual(1);
    if (outcome === 'success') expect(inserts, `sign ${sign}: a success sent its POST`).toBe(1);
    await session.settleAfterSign(outcome, since, before, loop.loads);
    if (loop.tableAfterEachSign) expect(texts(await readTable(stack.emulator)), `after sign ${sign}: the table`).toEqual(session.signed);
    if (loop.loads === 'retried') await expectNoRegression(session);
    await session.reload(loop.loads);
  }
  if (loop.rulesForSign) await countFired();
  return run;
}

/** The card count this document showed never went down: no older list replaced a newer one. */
async function expectNoRegression(session: FaultSession): Promise<void> {
  const counts = await session.cardCounts();
  expect(counts, 'cards shown over time, never fewer than before').toEqual([...counts].sort((a, b) => a - b));
}

/**
 * Switches the faults off and checks the promise of issue 6: the table holds exactly the signed entries, each once,
 * and the reloaded page shows them newest first, as stored.
 */
async function expectSignedEntriesStoredOnceAndShown(stack: Stack, session: FaultSession, loads: Loads): Promise<void> {
  await faultControl(stack.emulator).clear();
  if (loads === 'retried') await expectNoRegression(session);
  await session.reload('retried');
  const stored = await readTable(stack.emulator);
  expect(texts(stored), 'the table: every successful sign, once, in signing order, and nothing else').toEqual(session.signed);
  const newestFirst = [...stored].sort((a, b) => compareInstants(b.created_at, a.created_at));
  expect(newestFirst.map((row) => row.id), 'created_at orders the rows as their ids do').toEqual(stored.map((row) => row.id).reverse());
  expect(await shownEntries(session.page), 'the page: the stored rows, newest first').toEqual(
    newestFirst.map((row) => ({ name: row.name, message: row.message, createdAt: row.created_at })),
  );
}

function texts(rows: readonly StoredEntry[]): Entry[] {
  return rows.map(({ name, message }) => ({ name, message }));
}

/** Orders PostgREST timestamps (`2026-11-22T05:22:44.123456+00:00`, trailing zeros dropped) to the microsecond. */
function compareInstants(a: string, b: string): number {
  const micros = (text: string) => {
    const match = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(.*)$/.exec(text);
    if (!match) throw new Error(`not a timestamp: ${text}`);
    return BigInt(Date.parse(`${match[1]}${match[3]}`)) * 1000n + BigInt((match[2] ?? '').padEnd(6, '0'));
  };
  const difference = micros(a) - micros(b);
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

async function installForTheRun(stack: Stack, ...rules: FaultRule[]): Promise<FaultControl> {
  const faults = faultControl(stack.emulator);
  await faults.install({ seed: 6, rules });
  return faults;
}

/** Whether a run's loads failed only one at a time: every failed load was followed by one that worked. */
function noTwoFailedLoadsInARow(loads: readonly string[]): boolean {
  return loads.every((load, index) => load === 'loaded' || loads[index + 1] !== 'failed');
}

const everySign = (outcome: SignOutcome) => () => outcome;

test('latency of 100-400 ms on every request: every sign succeeds, stored once, shown newest first', async ({ session, stack }) => {
  const faults = await installForTheRun(stack, { paths: TABLE, fault: { kind: 'latency', ms: [100, 400] } });
  await signAndReload('latency', stack, session, { loads: 'retried', outcome: everySign('success') });
  const [stats] = await faults.stats();
  expect(stats?.fired).toBe(stats?.matched);
  // Per sign at least its POST, the reload's two reads and a page load's four.
  expect(stats?.fired).toBeGreaterThanOrEqual(SIGNS * 7);
  await expectSignedEntriesStoredOnceAndShown(stack, session, 'retried');
  expect(await session.loggedErrors(FETCH_ERROR)).toEqual([]);
});

test('503 on every 2nd read: reads are retried, every load and every sign succeeds', async ({ session, stack }) => {
  // Four signs: concurrent retries meet the every-2nd rule again and back off up to 1 + 2 + 4 s per load.
  const signs = 4;
  const faults = await installForTheRun(stack, { methods: ['GET'], paths: TABLE, every: 2, fault: { kind: 'status', status: 503 } });
  await signAndReload('503 on reads', stack, session, { loads: 'retried', signs, outcome: everySign('success') });
  expect((await faults.stats())[0]?.fired).toBeGreaterThanOrEqual(signs * 3);
  expect(session.failedReads(), 'reads the page saw answered 503 (then retried)').toBeGreaterThanOrEqual(signs * 3);
  await expectSignedEntriesStoredOnceAndShown(stack, session, 'retried');
  expect(await session.loggedErrors(FETCH_ERROR)).toEqual([]);
});

// Sign k arms its k-th read (counting from the sign's watermark read): over seven signs the fault lands once on each
// read of a step: the watermark, the reload's two reads, and the four reads of the page load that follows.
for (const { title, fault, error } of [
  { title: '500', fault: { kind: 'status', status: 500 }, error: { code: 'XX000', status: 500 } },
  { title: 'a truncated body', fault: { kind: 'truncate_body' }, error: { code: 'invalid_json', status: 200 } },
  { title: 'a non-JSON body', fault: { kind: 'non_json_body' }, error: { code: 'invalid_json', status: 200 } },
] satisfies { title: string; fault: Fault; error: { code: string; status: number } }[]) {
  test(`${title} for one read per step: not retried, the failed load is logged, the list kept, the next load works`, async ({ session, stack }) => {
    const run = await signAndReload(title, stack, session, {
      loads: 'not retried',
      signs: 7,
      rulesForSign: (sign) => [{ methods: ['GET'], paths: TABLE, every: sign, limit: 1, fault }],
    });
    expect(run.fired, 'one faulted read per sign').toEqual([7]);
    expect(session.loads, 'loads whose failure the page showed, the list kept').toContain('failed');
    expect(noTwoFailedLoadsInARow(session.loads), `the load after a failed one works: ${session.loads.join(', ')}`).toBe(true);
    await expectSignedEntriesStoredOnceAndShown(stack, session, 'not retried');
    const errors = await session.loggedErrors(FETCH_ERROR);
    expect(errors.length, 'failed loads, each logged').toBeGreaterThan(0);
    for (const logged of errors) expect(logged).toEqual({ isError: true, name: 'LogbookError', ...error });
    expect(run.outcomes.filter((outcome) => outcome === 'success').length, 'signs that succeeded').toBeGreaterThanOrEqual(6);
  });
}

test('503 on every 2nd insert, not applied: that sign fails with the form kept, nothing stored', async ({ session, stack }) => {
  const faults = await installForTheRun(stack, { methods: ['POST'], paths: TABLE, every: 2, apply: false, fault: { kind: 'status', status: 503 } });
  await signAndReload('503 on inserts, not applied', stack, session, {
    loads: 'retried',
    outcome: (sign) => (sign % 2 === 0 ? 'failure' : 'success'),
    tableAfterEachSign: true,
  });
  expect(await faults.stats()).toEqual([{ matched: SIGNS, fired: SIGNS / 2 }]);
  expect(session.failedInserts(), 'each 503 checked by a read before the sign failed').toEqual({ failed: SIGNS / 2, checked: SIGNS / 2 });
  await expectSignedEntriesStoredOnceAndShown(stack, session, 'retried');
  expect(await session.loggedErrors(INSERT_ERROR)).toEqual(
    Array(SIGNS / 2).fill({ isError: true, name: 'LogbookError', code: 'PGRST001', status: 503 }),
  );
});

test('503 on every 2nd insert, applied: the client finds its entry and reports success, stored once', async ({ session, stack }) => {
  const faults = await installForTheRun(stack, { methods: ['POST'], paths: TABLE, every: 2, apply: true, fault: { kind: 'status', status: 503 } });
  await signAndReload('503 on inserts, applied', stack, session, { loads: 'retried', outcome: everySign('success'), tableAfterEachSign: true });
  expect(await faults.stats()).toEqual([{ matched: SIGNS, fired: SIGNS / 2 }]);
  expect(session.failedInserts(), 'each 503 checked by a read, which found the entry').toEqual({ failed: SIGNS / 2, checked: SIGNS / 2 });
  await expectSignedEntriesStoredOnceAndShown(stack, session, 'retried');
  expect(await session.loggedErrors(INSERT_ERROR)).toEqual([]);
});

test('connections dropped before the answer to reads: retried, every load and every sign succeeds', async ({ session, stack }) => {
  // Chromium itself resends a request when a reused keep-alive connection closes before any byte of the answer, as
  // often as it has idle connections to try (three to five times seen here), so a fixed number of drops is either
  // absorbed below the client or outlasts the client's own retries. Before each odd sign, when its watermark read is
  // the only request in flight, every read is dropped until the page sees one fail; the plan is then cleared, well
  // before the client's retry one second later.
  const faults = faultControl(stack.emulator);
  let armed = false;
  let dropped = 0;
  session.page.on('requestfailed', (request) => {
    if (!armed || !request.url().includes(TABLE_PATH)) return;
    armed = false;
    void (async () => {
      dropped += (await faults.stats())[0]?.fired ?? 0;
      await faults.clear();
    })();
  });
  await signAndReload('dropped reads', stack, session, {
    loads: 'retried',
    outcome: everySign('success'),
    rulesForSign: (sign) => {
      armed = sign % 2 === 1;
      return armed ? [{ methods: ['GET'], paths: TABLE, limit: 20, fault: { kind: 'drop_before_response' } }] : [];
    },
  });
  expect(session.failedReads(), 'one read per odd sign failed at the page, then retried').toBe(SIGNS / 2);
  expect(dropped, "reads dropped (Chromium's attempts for the client's first)").toBeGreaterThanOrEqual(SIGNS / 2);
  await expectSignedEntriesStoredOnceAndShown(stack, session, 'retried');
  expect(await session.loggedErrors(FETCH_ERROR)).toEqual([]);
});

test('connections dropped before the answer to inserts, not applied: that sign fails, nothing stored', async ({ session, stack }) => {
  // Not applied only: Chromium resends a request (POST included) whose reused keep-alive connection closed before any
  // byte of the answer, so with `apply: true` the browser itself would store the entry several times, below the
  // client. Even signs get more drops than Chromium makes attempts (up to four seen for an insert); odd signs none.
  const run = await signAndReload('dropped inserts, not applied', stack, session, {
    loads: 'retried',
    rulesForSign: (sign) =>
      sign % 2 === 0 ? [{ methods: ['POST'], paths: TABLE, limit: 10, apply: false, fault: { kind: 'drop_before_response' } }] : [],
    outcome: (sign) => (sign % 2 === 0 ? 'failure' : 'success'),
    tableAfterEachSign: true,
  });
  expect(run.fired[0], 'inserts dropped').toBeGreaterThanOrEqual(SIGNS / 2);
  expect(session.failedInserts(), 'each dropped insert checked by a read before the sign failed').toEqual({ failed: SIGNS / 2, checked: SIGNS / 2 });
  await expectSignedEntriesStoredOnceAndShown(stack, session, 'retried');
  expect(await session.loggedErrors(INSERT_ERROR)).toEqual(
    Array(SIGNS / 2).fill({ isError: true, name: 'LogbookError', code: 'network_error', status: 0 }),
  );
});

test('connections cut in the middle of the answer to inserts: the client finds its entry, stored once', async ({ session, stack }) => {
  const faults = await installForTheRun(stack, { methods: ['POST'], paths: TABLE, every: 2, fault: { kind: 'drop_mid_response' } });
  await signAndReload('inserts cut mid-answer', stack, session, { loads: 'retried', outcome: everySign('success'), tableAfterEachSign: true });
  expect(await faults.stats()).toEqual([{ matched: SIGNS, fired: SIGNS / 2 }]);
  expect(session.failedInserts(), 'each cut answer checked by a read, which found the entry').toEqual({ failed: SIGNS / 2, checked: SIGNS / 2 });
  await expectSignedEntriesStoredOnceAndShown(stack, session, 'retried');
  expect(await session.loggedErrors(INSERT_ERROR)).toEqual([]);
});

test('connections cut in the middle of the answer to every 4th read: retried, every load succeeds', async ({ session, stack }) => {
  const faults = await installForTheRun(stack, { methods: ['GET'], paths: TABLE, every: 4, fault: { kind: 'drop_mid_response' } });
  await signAndReload('reads cut mid-answer', stack, session, { loads: 'retried', outcome: everySign('success') });
  expect((await faults.stats())[0]?.fired).toBeGreaterThanOrEqual(SIGNS);
  // A cut answer has bytes on the wire: Chromium does not resend it, the page sees each one fail.
  expect(session.failedReads(), 'reads the page saw fail (then retried)').toBe((await faults.stats())[0]?.fired);
  await expectSignedEntriesStoredOnceAndShown(stack, session, 'retried');
  expect(await session.loggedErrors(FETCH_ERROR)).toEqual([]);
});

test('every 2nd read answered after a later one: the page never goes back to an older list', async ({ session, stack }) => {
  const faults = await installForTheRun(stack, { methods: ['GET'], paths: TABLE, every: 2, fault: { kind: 'out_of_order', max_hold_ms: 500 } });
  await signAndReload('out of order', stack, session, { loads: 'retried', outcome: everySign('success') });
  expect((await faults.stats())[0]?.fired).toBeGreaterThanOrEqual(SIGNS * 3);
  // The page did get answers in the opposite order of its requests: a held read answered after a later one.
  const reads = [...session.allSent('all'), ...session.allSent('newest'), ...session.allSent('other read')];
  const overtaken = reads.filter((held) =>
    reads.some((later) => later.life === held.life && later.sentAt > held.sentAt && (later.endedAt ?? 0) < (held.endedAt ?? 0)),
  );
  expect(overtaken.length, 'reads answered after a later read').toBeGreaterThanOrEqual(SIGNS);
  await expectSignedEntriesStoredOnceAndShown(stack, session, 'retried');
  expect(await session.loggedErrors(FETCH_ERROR)).toEqual([]);
});

test.describe('with a 1.5 s request timeout', () => {
  const READ_DELAY_MS = 2500;
  const INSERT_DELAY_MS = 3500;
  test.use({ requestTimeoutMs: 1500 });

  test('reads and one insert delayed past it: reads are retried, the insert fails and is never stored', async ({ session, stack }) => {
    // The emulator sleeps before it handles a delayed request and drops the request if the client closes the
    // connection meanwhile, so the insert the client aborts at 1.5 s is never handled: its sign must fail, and the
    // entry must not turn up later either. Reads delayed past the timeout are aborted and retried.
    const delayedRead = (nth: number): FaultRule => ({ methods: ['GET'], paths: TABLE, every: nth, limit: 1, fault: { kind: 'latency', ms: READ_DELAY_MS } });
    const delayedInsert: FaultRule = { methods: ['POST'], paths: TABLE, limit: 1, fault: { kind: 'latency', ms: INSERT_DELAY_MS } };
    // Per sign: its watermark read, the reload's whole list or first screen, the insert, a page load's reads, none.
    const plans: FaultRule[][] = [[delayedRead(1)], [delayedRead(3)], [delayedInsert], [delayedRead(4)], [delayedRead(7)], []];
    const run = await signAndReload('timeouts', stack, session, {
      loads: 'retried',
      rulesForSign: (sign) => plans[sign - 1] ?? [],
      outcome: (sign) => (sign === 3 ? 'failure' : 'success'),
    });
    expect(run.fired, 'one delayed request per sign but the last').toEqual([5]);
    // Had the aborted insert been handled after all, it would land when its delay ends: wait that out before the
    // table is read (a bounded wait for the server's side, not for the page).
    const delayedInsertEnds = (run.submittedAt[2] ?? 0) + INSERT_DELAY_MS + 500;
    await session.page.waitForTimeout(Math.max(0, delayedInsertEnds - Date.now()));
    await expectSignedEntriesStoredOnceAndShown(stack, session, 'retried');
    expect(session.failedInserts(), 'the aborted insert, checked by a read before the sign failed').toEqual({ failed: 1, checked: 1 });
    expect(await session.loggedErrors(FETCH_ERROR)).toEqual([]);
    expect(await session.loggedErrors(INSERT_ERROR)).toEqual([{ isError: true, name: 'LogbookError', code: 'timeout', status: 0 }]);
  });
});
