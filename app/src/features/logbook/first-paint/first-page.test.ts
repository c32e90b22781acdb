import { beforeAll, describe, expect, it, vi } from 'vitest';
import { deferred } from '@/testing/deferred';
import { fakeReads, readAt } from '@/testing/fake-paged-read';
import { getClient } from '../api/client';
import { loadClientCode } from '../api/client-code';
import { startEntryPages } from '../api/entry-pages';
import type { VisitPlan } from '../reads/first-read';
import { paintFirstPage } from './first-page';
import type { EntryRows } from '../types';

vi.mock('../api/client', () => ({ getClient: vi.fn() }));

beforeAll(async () => {
  await loadClientCode();
});

const entry = (id: number) => ({ id, created_at: `2024-05-01T10:0${id}:00+00:00`, name: `Name ${id}`, message: `Message ${id}` });
const WHOLE: VisitPlan = { kept: null, plan: { kind: 'whole' } };
const NEWER: VisitPlan = { kept: { entries: [entry(1)], updatedAt: 1, reconciledAt: 1 }, plan: { kind: 'newer', since: '2024-05-01T09:59:00.000Z' } };

/** A visit's read as first-read.ts starts it: the plan, then the pages it calls for (from a client the test drives). */
function visitRead() {
  const reads = fakeReads();
  vi.mocked(getClient).mockReturnValue({ listEntries: reads.listEntries } as unknown as ReturnType<typeof getClient>);
  const plan = deferred<VisitPlan>();
  const visit: { plan: Promise<VisitPlan>; settled?: VisitPlan; pages: ReturnType<typeof startEntryPages> } = {
    plan: plan.promise,
    pages: startEntryPages(plan.promise.then(() => undefined)),
  };
  void plan.promise.then((known) => (visit.settled = known));
  return { reads, plan, visit };
}

/** A paint that records the rows it was handed, read while it runs. */
function recordingPaint(painted = true) {
  const seen: string[][] = [];
  const paint = vi.fn((rows: EntryRows) => {
    seen.push(Array.from({ length: rows.length }, (_, index) => rows.name(index)));
    return painted;
  });
  return { seen, paint };
}

describe('paintFirstPage', () => {
  it("paints a whole read's first page as it arrives, once, and resolves to true", async () => {
    const { reads, plan, visit } = visitRead();
    const { seen, paint } = recordingPaint();
    const painted = paintFirstPage(visit, paint);
    plan.resolve(WHOLE);
    await vi.waitFor(() => expect(reads.started).toHaveLength(1));
    readAt(reads, 0).page([entry(2), entry(1)]);
    await expect(painted).resolves.toBe(true);
    readAt(reads, 0).page([entry(3), entry(2), entry(1)]);
    expect(seen).toEqual([['Name 2', 'Name 1']]);
  });

  it('reads the rows before anyone who took the read over can free them', async () => {
    const { reads, plan, visit } = visitRead();
    const { seen, paint } = recordingPaint();
    const painted = paintFirstPage(visit, paint);
    // The logbook took the read over and frees every page it is handed at once.
    visit.pages.subscribe((list) => list.free());
    plan.resolve(WHOLE);
    await vi.waitFor(() => expect(reads.started).toHaveLength(1));
    readAt(reads, 0).page([entry(1)]);
    await expect(painted).resolves.toBe(true);
    expect(seen).toEqual([['Name 1']]);
  });

  it('resolves to false when the page was not painted (nothing in it, or React owns the page)', async () => {
    const { reads, plan, visit } = visitRead();
    const painted = paintFirstPage(visit, recordingPaint(false).paint);
    plan.resolve(WHOLE);
    await vi.waitFor(() => expect(reads.started).toHaveLength(1));
    readAt(reads, 0).page([]);
    await expect(painted).resolves.toBe(false);
  });

  it("never paints a catch-up read's page (only the entries newer than the copy), and resolves at once to false", async () => {
    const { reads, plan, visit } = visitRead();
    const { paint } = recordingPaint();
    const painted = paintFirstPage(visit, paint);
    plan.resolve(NEWER);
    await expect(painted).resolves.toBe(false);
    await vi.waitFor(() => expect(reads.started).toHaveLength(1));
    readAt(reads, 0).page([entry(2)]);
    expect(paint).not.toHaveBeenCalled();
  });

  it('resolves to false when the read fails or ends before delivering any page', async () => {
    const failing = visitRead();
    const failed = paintFirstPage(failing.visit, recordingPaint().paint);
    failing.plan.resolve(WHOLE);
    await vi.waitFor(() => expect(failing.reads.started).toHaveLength(1));
    await readAt(failing.reads, 0).fail(new Error('page 1: offline'));
    await expect(failed).resolves.toBe(false);

    const ending = visitRead();
    const ended = paintFirstPage(ending.visit, recordingPaint().paint);
    ending.plan.resolve(WHOLE);
    await vi.waitFor(() => expect(ending.reads.started).toHaveLength(1));
    await readAt(ending.reads, 0).finish();
    await expect(ended).resolves.toBe(false);
  });
});
