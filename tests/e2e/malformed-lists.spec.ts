// The malformed-list corpus (tests/fixtures/malformed-lists/cases.json) in the browser: each body is served as the
// 200 answer to every read of the list (its first page fails), and the page must log "Error fetching logs:" with an Error carrying the
// manifest's code, index and field, throw nothing, and still show the logbook (heading and form) with an empty list.
// core/tests/malformed_lists.rs replays the same corpus against the Rust parser.
import type { ConsoleMessage, Page } from '@playwright/test';
import { expect, logbookPage, test } from './fixtures.ts';
import { malformedLists, type ExpectedError } from '../fixtures/corpora.mjs';

test.skip(({ pageServer }) => pageServer === 'production', 'the corpus tests the client, which both builds share: dev server only');

/** The list's pages are read from this table (a DevTools protocol URL pattern). */
const TABLE_URL_PATTERN = '*/rest/v1/geocache_logs*';

/** The time one case (a page load and its logged error) may take. */
const PAGE_LOAD_BUDGET_MS = 6_000;
/**
 * How long one case may take to be logged before the test gives up on it: a hang guard, not a speed target. A
 * generated body (50 MiB, 100,000 nested brackets) is parsed in tens of seconds on a busy 2-core machine.
 */
const CASE_DEADLINE_MS = { stored: 30_000, generated: 120_000 };

/** A console.error call as the page made it. */
interface LoggedCall {
  label: unknown;
  error: { isError: boolean; name: string; code: unknown; status: unknown; index: unknown; field: unknown } | 'no error argument';
}

/** What one case did to the page. */
interface Observed {
  /** Every distinct console.error call (React's StrictMode runs the first load twice in development). */
  calls: LoggedCall[];
  pageErrors: string[];
  headingVisible: boolean;
  formUsable: boolean;
  entries: number;
}

function wanted(expected: ExpectedError): Observed {
  return {
    calls: [
      {
        label: 'Error fetching logs:',
        error: { isError: true, name: 'LogbookError', code: expected.code, status: 200, index: expected.index, field: expected.field },
      },
    ],
    pageErrors: [],
    headingVisible: true,
    formUsable: true,
    entries: 0,
  };
}

/**
 * A console.error call made by the document at `/?case=<marker>`, read at once (the next case navigates away);
 * undefined for other calls, such as a late one from the previous case's document.
 */
async function readCall(message: ConsoleMessage, marker: string): Promise<LoggedCall | undefined> {
  const [label, error] = message.args();
  if (message.type() !== 'error' || label === undefined) return undefined;
  const call = await label
    .evaluate(
      (labelValue: unknown, [value, marker]: readonly [unknown, string]) => {
        if (new URLSearchParams(location.search).get('case') !== marker) return undefined;
        if (value === undefined) return { label: labelValue, error: 'no error argument' as const };
        const fields = value as { code?: unknown; status?: unknown; index?: unknown; field?: unknown };
        return {
          label: labelValue,
          error: {
            isError: value instanceof Error,
            name: value instanceof Error ? value.name : typeof value,
            code: fields.code,
            status: fields.status,
            // The client leaves index and field out for invalid_json; the manifest writes null.
            index: fields.index ?? null,
            field: fields.field ?? null,
          },
        };
      },
      [error, marker] as const,
    )
    // A document that is gone is not this case's.
    .catch(() => undefined);
  return call ?? undefined;
}

/**
 * Answers the page's reads of the list with `body()`, through the DevTools protocol's Fetch domain. Playwright's
 * page.route would turn the browser's cache off for the whole page, and every case would then load each of the dev
 * server's modules afresh; only the list's reads are intercepted here. The preflight still goes to the emulator,
 * which allows the page's origin; the answer says so too.
 */
async function answerReads(page: Page, body: () => Buffer): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  cdp.on('Fetch.requestPaused', ({ requestId, request }) => {
    const answer =
      request.method === 'GET'
        ? cdp.send('Fetch.fulfillRequest', {
            requestId,
            responseCode: 200,
            responseHeaders: [
              { name: 'content-type', value: 'application/json' },
              { name: 'access-control-allow-origin', value: '*' },
            ],
            body: body().toString('base64'),
          })
        : cdp.send('Fetch.continueRequest', { requestId });
    // A request of a document the next case has replaced is gone: nothing to answer.
    answer.catch(() => undefined);
  });
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: TABLE_URL_PATTERN, requestStage: 'Request' }] });
}

test('every malformed list is reported with its code, index and field, and the page stays usable', async ({ page, record }) => {
  const cases = malformedLists();
  expect(cases.length).toBeGreaterThanOrEqual(50);
  // A page load per case, each a few seconds even when the machine is busy with other suites, and the generated
  // bodies' tens: a budget per case, so that the whole grows with the corpus and a hang still fails the test.
  const generated = cases.filter((malformed) => malformed.generated).length;
  test.setTimeout(cases.length * PAGE_LOAD_BUDGET_MS + generated * CASE_DEADLINE_MS.generated + 60_000);

  let body: Buffer = Buffer.alloc(0);
  await answerReads(page, () => body);
  let marker = '';
  let calls: Promise<LoggedCall | undefined>[] = [];
  page.on('console', (message) => calls.push(readCall(message, marker)));

  const logbook = logbookPage(page);
  const observed: Record<string, Observed> = {};
  const expected: Record<string, Observed> = {};
  for (const [index, malformed] of cases.entries()) {
    body = malformed.body();
    marker = String(index);
    calls = [];
    await page.goto(`/?case=${marker}`, { waitUntil: 'commit' });
    record.pageErrors.length = 0;
    const logged = async () => (await Promise.all(calls)).filter((call) => call !== undefined);
    // Every case logs one call: wait for it however slow the machine is (the comparison below says what differed).
    await expect
      .poll(async () => (await logged()).length, {
        timeout: malformed.generated ? CASE_DEADLINE_MS.generated : CASE_DEADLINE_MS.stored,
        intervals: [25],
      })
      .toBeGreaterThan(0)
      .catch(() => undefined);
    observed[malformed.name] = {
      calls: [...new Map((await logged()).map((call) => [JSON.stringify(call), call])).values()],
      pageErrors: record.pageErrors.map((error) => error.message),
      headingVisible: await logbook.heading.isVisible(),
      formUsable: (await logbook.name.isEditable()) && (await logbook.message.isEditable()) && (await logbook.submit.isEnabled()),
      entries: await logbook.entries.count(),
    };
    expected[malformed.name] = wanted(malformed.expected);
  }
  expect(observed).toEqual(expected);
});
