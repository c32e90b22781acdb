// A sign under each of the emulator's insert faults ends stored exactly once: delivered at once when a resend gets
// through, or, when every resend fails too, kept in the device's outbox and delivered from there once the faults
// stop. Every attempt carries the sign's Idempotency-Key, so an insert that was applied before its answer was lost is
// not stored again.
import type { Page } from '@playwright/test';
import { faultControl, readTable, TABLE_PATH, type Fault } from './fault-plan.ts';
import { expect, logbookPage, test } from './fixtures.ts';

test.skip(({ pageServer }) => pageServer === 'production', 'the faults test the client, which both builds share: dev server only');

// Short enough that a sign whose every attempt times out is kept within the test's time.
test.use({ requestTimeoutMs: 1500 });

const TABLE = [TABLE_PATH];
const SIGNED = 'Signed.';
const SAVED = 'Saved on this device: it will be sent when the connection returns.';
const SENT = 'Signed: the sign saved on this device was sent.';

interface InsertFault {
  name: string;
  fault: Fault;
  /** Whether the insert is stored before the fault hits its answer (status and drops only). */
  apply?: boolean;
}

const INSERT_FAULTS: InsertFault[] = [
  { name: '503, applied', fault: { kind: 'status', status: 503 }, apply: true },
  { name: '503, not applied', fault: { kind: 'status', status: 503 }, apply: false },
  { name: 'connection dropped after the insert was applied', fault: { kind: 'drop_before_response' }, apply: true },
  { name: 'connection dropped before the insert was applied', fault: { kind: 'drop_before_response' }, apply: false },
  // The emulator waits past the client's deadline and never handles the aborted request.
  { name: 'timeout', fault: { kind: 'latency', ms: 3000 } },
];

async function fillAndSign(page: Page, entry: { name: string; message: string }): Promise<void> {
  const logbook = logbookPage(page);
  await logbook.name.fill(entry.name);
  await logbook.message.fill(entry.message);
  await logbook.submit.click();
}

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(logbookPage(page).status).toHaveText('No entries yet.');
});

for (const { name, fault, apply } of INSERT_FAULTS) {
  const applied = apply === undefined ? {} : { apply };
  test(`${name} on the first attempt: a resend delivers the sign now, stored once`, async ({ page, stack }) => {
    const faults = faultControl(stack.emulator);
    await faults.install({ rules: [{ methods: ['POST'], paths: TABLE, limit: 1, ...applied, fault }] });
    const entry = { name: 'Ada', message: `now: ${name}` };
    await fillAndSign(page, entry);
    await expect(logbookPage(page).status).toHaveText(SIGNED, { timeout: 30_000 });
    await faults.clear();
    await expect(logbookPage(page).pending).toHaveCount(0);
    await expect(logbookPage(page).entries).toHaveCount(1);
    const rows = await readTable(stack.emulator);
    expect(rows.map((row) => [row.name, row.message])).toEqual([[entry.name, entry.message]]);
  });

  test(`${name} on every attempt: kept on the device, then delivered from the outbox, stored once`, async ({ page, stack }) => {
    const logbook = logbookPage(page);
    const faults = faultControl(stack.emulator);
    await faults.install({ rules: [{ methods: ['POST'], paths: TABLE, ...applied, fault }] });
    const entry = { name: 'Bo', message: `outbox: ${name}` };
    await fillAndSign(page, entry);
    await expect(logbook.status).toHaveText(SAVED, { timeout: 45_000 });
    await expect(logbook.pending).toHaveCount(1);
    await expect(logbook.name).toHaveValue(entry.name);

    await faults.clear();
    // The outbox's first retry follows 5 s later (the page is online); later ones back off up to a minute.
    await expect(logbook.status).toHaveText(SENT, { timeout: 45_000 });
    await expect(logbook.pending).toHaveCount(0);
    await expect(logbook.entries).toHaveCount(1);
    await expect(logbook.name).toHaveValue('');
    const rows = await readTable(stack.emulator);
    expect(rows.map((row) => [row.name, row.message])).toEqual([[entry.name, entry.message]]);
  });
}
