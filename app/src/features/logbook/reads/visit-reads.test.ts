import { afterEach, beforeAll, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { expectConsoleErrors } from '@/testing/console';
import { deferred } from '@/testing/deferred';
import { fakeEntryList, freeSpy } from '@/testing/fake-entry-list';
import { fakeReads, readAt, type FakeReads } from '@/testing/fake-paged-read';
import { getClient } from '../api/client';
import { loadClientCode } from '../api/client-code';
import { startEntryPages } from '../api/entry-pages';
import type { CaughtUpChanges } from '../device-copy/changes-catch-up';
import type { DeviceCopy } from '../device-copy/copy-store';
import type { Removals } from '../device-copy/removals';
import { ArrivalKeeper } from '../live/arrival-keeper';
import type { EntryRows, KeptCopy, KeptEntry, LiveListener, LogEntry } from '../types';
import type { FirstRead, VisitPlan } from './first-read';
import { VisitReads, type LogEntries } from './visit-reads';

vi.mock('../api/client', () => ({ getClient: vi.fn() }));

beforeAll(async () => {
  await loadClientCode();
});

const ann: LogEntry = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'First!' };
const bo: LogEntry = { id: 2, created_at: '2024-05-02T10:00:00+00:00', name: 'Bo', message: 'TFTC' };
const cy: LogEntry = { id: 3, created_at: '2024-05-03T10:00:00+00:00', name: 'Cy', message: 'Hi' };
const dee: LogEntry = { id: 4, created_at: '2024-05-04T10:00:00+00:00', name: 'Dee', message: 'Yo' };

const NOW = Date.parse('2024-06-01T00:00:00Z');
const WHOLE: VisitPlan = { kept: null, plan: { kind: 'whole' } };

let reads: FakeReads;
/** Tasks waiting for the browser to be idle (lib/when-idle.ts), run by the test. */
let idle: (() => void)[];
let copy: { read: Mock<DeviceCopy['read']>; replace: Mock<DeviceCopy['replace']> };
let listeners: LiveListener[];
let stopListening: Mock<() => void>;
let readNewer: Mock<(since: string | undefined) => Promise<readonly KeptEntry[]>>;
let opened: VisitReads[];

beforeEach(() => {
  reads = fakeReads();
  vi.mocked(getClient).mockReturnValue({ listEntries: reads.listEntries } as unknown as ReturnType<typeof getClient>);
  idle = [];
  vi.stubGlobal('requestIdleCallback', (task: () => void) => idle.push(task));
  copy = { read: vi.fn<DeviceCopy['read']>(() => Promise.resolve(null)), replace: vi.fn<DeviceCopy['replace']>(() => Promise.resolve()) };
  listeners = [];
  stopListening = vi.fn<() => void>();
  readNewer = vi.fn<(since: string | undefined) => Promise<readonly KeptEntry[]>>();
  opened = [];
});
afterEach(() => {
  for (const visit of opened) visit.close();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/**
 * The visit's reads over the test's client, copy and live source; `plan` is the first read's, settled at once.
 * `changes` reads the owner's removals and restores (none without it).
 */
function visitReads(plan: VisitPlan = WHOLE, keptBefore: KeptCopy | null = null, changes?: (known: Removals) => Promise<CaughtUpChanges>) {
  const keeper = new ArrivalKeeper(() => Promise.resolve(copy));
  const firstRead = (): FirstRead => ({
    copy: Promise.resolve(copy),
    plan: Promise.resolve(plan),
    settled: plan,
    pages: startEntryPages(Promise.resolve(plan.plan.kind === 'newer' ? plan.plan.since : undefined)),
  });
  const visit = new VisitReads({
    firstRead,
    wholeRead: () => startEntryPages(),
    openCopy: () => Promise.resolve(copy),
    keptBefore,
    live: {
      source: {
        listen: (listener) => {
          listeners.push(listener);
          return stopListening;
        },
      },
      readNewer,
      keeper,
    },
    changes,
    now: () => NOW,
  });
  const changed = vi.fn();
  visit.subscribe(changed);
  opened.push(visit);
  return { visit, changes: changed, keep: vi.spyOn(keeper, 'add') };
}

const names = (rows: EntryRows) => Array.from({ length: rows.length }, (_, index) => rows.name(index));
const shown = (visit: VisitReads) => names(visit.snapshot().entries);

/** Opens the reads and waits for the first read to ask the client (the client's code loads first). */
async function open(visit: VisitReads, read = 0) {
  visit.open();
  await vi.waitFor(() => expect(reads.started.length).toBeGreaterThan(read));
}

/** Renders what the reads show, as React commits it (use-log-entries.ts). */
function commit(visit: VisitReads): LogEntries {
  const view = visit.snapshot();
  visit.rendered(view);
  return view;
}

describe('VisitReads: the first read', () => {
  it('shows the copy found before it opened, then each page of a whole read as it arrives, then says it is loaded', async () => {
    const { visit, changes } = visitReads(WHOLE, { entries: [bo, ann], updatedAt: 5, reconciledAt: 4 });
    expect(visit.snapshot()).toMatchObject({ fromDevice: true, updatedAt: 5, read: 'loading' });
    expect(shown(visit)).toEqual(['Bo', 'Ann']);

    await open(visit);
    readAt(reads, 0).page([cy]);
    expect(visit.snapshot()).toMatchObject({ fromDevice: false, read: 'loading' });
    expect(shown(visit)).toEqual(['Cy']);
    readAt(reads, 0).page([cy, bo]);
    expect(shown(visit)).toEqual(['Cy', 'Bo']);
    await readAt(reads, 0).finish();
    expect(visit.snapshot().read).toBe('loaded');
    expect(changes).toHaveBeenCalledTimes(3);
  });

  it('keeps the whole list on the device once the browser is idle, with the time it was read', async () => {
    const { visit } = visitReads();
    await open(visit);
    readAt(reads, 0).page([bo, ann]);
    await readAt(reads, 0).finish();
    expect(copy.replace).not.toHaveBeenCalled();
    idle.splice(0).forEach((task) => task());
    await vi.waitFor(() => expect(copy.replace).toHaveBeenCalledExactlyOnceWith([bo, ann], { updatedAt: NOW, reconciledAt: NOW }));
    await vi.waitFor(() => expect(visit.snapshot().updatedAt).toBe(NOW));
  });

  it('catches a copy reconciled lately up: the newer entries merged into it by id, and kept with its reconciliation time', async () => {
    const kept: KeptCopy = { entries: [bo, ann], updatedAt: 5, reconciledAt: 4 };
    const { visit } = visitReads({ kept, plan: { kind: 'newer', since: '2024-05-02T09:59:00.000Z' } });
    await open(visit);
    expect(shown(visit)).toEqual(['Bo', 'Ann']);
    const newer = readAt(reads, 0).page([cy, { ...bo, message: 'edited' }]);
    await readAt(reads, 0).finish();
    await vi.waitFor(() => expect(visit.snapshot().read).toBe('loaded'));
    expect(shown(visit)).toEqual(['Cy', 'Bo', 'Ann']);
    expect(visit.snapshot().fromDevice).toBe(false);
    // Read out of wasm memory and given back at once.
    expect(freeSpy(newer)).toHaveBeenCalled();
    await vi.waitFor(() => expect(copy.replace).toHaveBeenCalledTimes(1));
    expect(copy.replace.mock.calls[0]).toEqual([[cy, { ...bo, message: 'edited' }, ann], { updatedAt: NOW, reconciledAt: 4 }]);
  });

  it('logs a failed read as "Error fetching logs:" and says it failed, keeping what is shown', async () => {
    const { visit } = visitReads(WHOLE, { entries: [ann], updatedAt: 5, reconciledAt: 4 });
    await open(visit);
    const error = new Error('offline');
    await readAt(reads, 0).fail(error);
    expectConsoleErrors([['Error fetching logs:', error]]);
    expect(visit.snapshot()).toMatchObject({ read: 'failed', fromDevice: true });
    expect(shown(visit)).toEqual(['Ann']);
  });
});

describe('VisitReads: reloads', () => {
  async function loaded(entries: LogEntry[]) {
    const made = visitReads();
    await open(made.visit);
    readAt(reads, 0).page(entries);
    await readAt(reads, 0).finish();
    commit(made.visit);
    return made;
  }

  it('shows the fresh pages over the older part of the list shown before, then the fresh list alone', async () => {
    const { visit } = await loaded([cy, bo, ann]);
    visit.reload();
    await vi.waitFor(() => expect(reads.started).toHaveLength(2));
    readAt(reads, 1).page([dee, cy]);
    expect(shown(visit)).toEqual(['Dee', 'Cy', 'Bo', 'Ann']);
    await readAt(reads, 1).finish();
    expect(shown(visit)).toEqual(['Dee', 'Cy']);
  });

  it('after a sign, says the sign is shown once the reload\'s first page is, and once only', async () => {
    const { visit } = await loaded([bo, ann]);
    const signShown = vi.fn();
    visit.reloadAfterSign(signShown);
    await vi.waitFor(() => expect(reads.started).toHaveLength(2));
    expect(signShown).not.toHaveBeenCalled();
    readAt(reads, 1).page([cy, bo]);
    expect(shown(visit)).toEqual(['Cy', 'Bo', 'Ann']);
    expect(signShown).toHaveBeenCalledTimes(1);
    await readAt(reads, 1).finish();
    expect(signShown).toHaveBeenCalledTimes(1);
  });

  it('after a sign, shows the entry as stored on top at once, and once only when the reload brings it', async () => {
    const { visit } = await loaded([bo, ann]);
    const arrived = vi.fn();
    visit.onArrived(arrived);
    visit.reloadAfterSign(vi.fn(), cy);
    // Before any page of the reload: the stored row, over the list shown.
    expect(shown(visit)).toEqual(['Cy', 'Bo', 'Ann']);
    expect(arrived).toHaveBeenCalledWith([cy]);
    await vi.waitFor(() => expect(reads.started).toHaveLength(2));
    readAt(reads, 1).page([cy, bo]);
    expect(shown(visit)).toEqual(['Cy', 'Bo', 'Ann']);
    await readAt(reads, 1).finish();
    expect(shown(visit)).toEqual(['Cy', 'Bo']);
    expect(arrived).toHaveBeenCalledTimes(1);
  });

  it('after a sign, keeps the stored row off the device until a whole read holds what came before it', async () => {
    const { visit } = await loaded([bo, ann]);
    visit.reloadAfterSign(vi.fn(), cy);
    expect(shown(visit)).toEqual(['Cy', 'Bo', 'Ann']);
    // The visitor leaves before the reload ends: what arrived live is written now, the stored row is not (entries
    // signed elsewhere between the list's read and this sign would fall into a gap the next visit never reads).
    vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
    document.dispatchEvent(new Event('visibilitychange'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(copy.read).not.toHaveBeenCalled();
    expect(copy.replace).not.toHaveBeenCalled();
  });

  it('after a sign, the stored row stays shown when the reload fails', async () => {
    const { visit } = await loaded([bo, ann]);
    visit.reloadAfterSign(vi.fn(), cy);
    await vi.waitFor(() => expect(reads.started).toHaveLength(2));
    const error = new Error('offline');
    await readAt(reads, 1).fail(error);
    expectConsoleErrors([['Error fetching logs:', error]]);
    expect(shown(visit)).toEqual(['Cy', 'Bo', 'Ann']);
  });

  it('after a sign, says the sign is done with when the reload fails or is overtaken before a page', async () => {
    const { visit } = await loaded([bo, ann]);
    const failedShown = vi.fn();
    visit.reloadAfterSign(failedShown);
    await vi.waitFor(() => expect(reads.started).toHaveLength(2));
    const error = new Error('offline');
    await readAt(reads, 1).fail(error);
    await vi.waitFor(() => expect(failedShown).toHaveBeenCalledTimes(1));
    expectConsoleErrors([['Error fetching logs:', error]]);
    const overtaken = vi.fn();
    visit.reloadAfterSign(overtaken);
    visit.reload();
    await vi.waitFor(() => expect(reads.started).toHaveLength(4));
    readAt(reads, 2).page([cy]);
    expect(overtaken).toHaveBeenCalledTimes(1);
  });

  it('lets the newest read win: an older read\'s later pages and result are freed, never shown', async () => {
    const { visit } = visitReads();
    await open(visit);
    readAt(reads, 0).page([bo]);
    visit.reload();
    await vi.waitFor(() => expect(reads.started).toHaveLength(2));
    readAt(reads, 1).page([cy, bo]);
    await readAt(reads, 1).finish();
    const late = readAt(reads, 0).page([bo, ann]);
    expect(freeSpy(late)).toHaveBeenCalledTimes(1);
    await readAt(reads, 0).finish();
    expect(shown(visit)).toEqual(['Cy', 'Bo']);
  });

  it('frees a replaced list only once React has committed what replaced it', async () => {
    const { visit } = visitReads();
    await open(visit);
    const first = readAt(reads, 0).page([bo]);
    commit(visit);
    const second = readAt(reads, 0).page([bo, ann]);
    // The screen still shows the first list until React commits the second.
    expect(freeSpy(first)).not.toHaveBeenCalled();
    commit(visit);
    expect(freeSpy(first)).toHaveBeenCalledTimes(1);
    expect(freeSpy(second)).not.toHaveBeenCalled();
  });

  it('keeps a failed reload from saying the read failed once one has loaded, and logs it', async () => {
    const { visit } = await loaded([ann]);
    visit.reload();
    await vi.waitFor(() => expect(reads.started).toHaveLength(2));
    const error = new Error('server error');
    await readAt(reads, 1).fail(error);
    expectConsoleErrors([['Error fetching logs:', error]]);
    expect(visit.snapshot().read).toBe('loaded');
    expect(shown(visit)).toEqual(['Ann']);
  });
});

describe('VisitReads: closed', () => {
  it('frees what a read brings after it closed, shows nothing more, and reads afresh when opened again', async () => {
    const { visit, changes } = visitReads();
    await open(visit);
    visit.close();
    const late = readAt(reads, 0).page([ann]);
    expect(freeSpy(late)).toHaveBeenCalledTimes(1);
    await readAt(reads, 0).finish();
    expect(changes).not.toHaveBeenCalled();
    expect(shown(visit)).toEqual([]);
    visit.reload();
    expect(reads.started).toHaveLength(1);

    await open(visit, 1);
    readAt(reads, 1).page([bo]);
    expect(shown(visit)).toEqual(['Bo']);
  });
});

describe('VisitReads: entries that arrive while the page is open', () => {
  /** Reads `entries`, lets the browser be idle, and subscribes the channel, whose catch-up read brings `catchUp`. */
  async function live(entries: LogEntry[], catchUp: readonly KeptEntry[] = []) {
    const made = visitReads();
    await open(made.visit);
    readAt(reads, 0).page(entries);
    await readAt(reads, 0).finish();
    commit(made.visit);
    expect(listeners).toHaveLength(0);
    idle.splice(0).forEach((task) => task());
    expect(listeners).toHaveLength(1);
    readNewer.mockResolvedValueOnce(catchUp);
    listeners[0]?.onStatus('SUBSCRIBED');
    await vi.waitFor(() => expect(readNewer).toHaveBeenCalledTimes(1));
    await Promise.resolve();
    return made;
  }

  it('listens only once a read has settled and the browser is idle after it', async () => {
    const { visit } = visitReads();
    await open(visit);
    idle.splice(0).forEach((task) => task());
    expect(listeners).toHaveLength(0);
    readAt(reads, 0).page([ann]);
    await readAt(reads, 0).finish();
    expect(listeners).toHaveLength(0);
    idle.splice(0).forEach((task) => task());
    expect(listeners).toHaveLength(1);
  });

  it('shows each arrival on top once, tells who listens of the fresh ones, and a read that holds them takes them over', async () => {
    const { visit } = await live([bo, ann]);
    const heard = vi.fn();
    visit.onArrived(heard);
    listeners[0]?.onEntry(cy);
    listeners[0]?.onEntry(cy);
    listeners[0]?.onEntry(bo);
    expect(shown(visit)).toEqual(['Cy', 'Bo', 'Ann']);
    expect(heard).toHaveBeenCalledExactlyOnceWith([cy]);

    visit.reload();
    await vi.waitFor(() => expect(reads.started).toHaveLength(2));
    readAt(reads, 1).page([dee, cy]);
    expect(shown(visit)).toEqual(['Dee', 'Cy', 'Bo', 'Ann']);
    // The owner removed Cy since: the reload's whole list says so, and the arrival does not bring it back.
    await readAt(reads, 1).finish(fakeEntryList([dee, bo, ann]));
    expect(shown(visit)).toEqual(['Dee', 'Bo', 'Ann']);
  });

  it('writes arrivals to the device only while it holds every entry since the latest subscription', async () => {
    const { keep } = await live([bo, ann]);
    listeners[0]?.onEntry(cy);
    expect(keep).toHaveBeenCalledExactlyOnceWith([cy], bo.created_at);
    // Reconnected: until its catch-up read is in, an arrival may sit above a gap.
    readNewer.mockReturnValueOnce(new Promise(() => undefined));
    listeners[0]?.onStatus('SUBSCRIBED');
    listeners[0]?.onEntry(dee);
    expect(keep).toHaveBeenCalledTimes(1);
  });

  it('reads the rows from a minute before the newest shown after every subscription, and merges them by id', async () => {
    const { visit } = await live([bo, ann], [bo]);
    expect(readNewer).toHaveBeenLastCalledWith('2024-05-02T09:59:00.000Z');
    listeners[0]?.onEntry(cy);
    listeners[0]?.onStatus('CLOSED');
    readNewer.mockResolvedValueOnce([dee, cy]);
    listeners[0]?.onStatus('SUBSCRIBED');
    await vi.waitFor(() => expect(shown(visit)).toEqual(['Dee', 'Cy', 'Bo', 'Ann']));
    expect(readNewer).toHaveBeenLastCalledWith('2024-05-03T09:59:00.000Z');
  });

  it('leaves the channel when it closes', async () => {
    const { visit } = await live([ann]);
    visit.close();
    expect(stopListening).toHaveBeenCalledTimes(1);
  });

  it('shows the catch-up read of the latest subscription only', async () => {
    const { visit } = await live([ann]);
    const slow = deferred<readonly KeptEntry[]>();
    readNewer.mockReturnValueOnce(slow.promise).mockResolvedValueOnce([cy]);
    listeners[0]?.onStatus('SUBSCRIBED');
    listeners[0]?.onStatus('SUBSCRIBED');
    await vi.waitFor(() => expect(shown(visit)).toEqual(['Cy', 'Ann']));
    slow.resolve([bo]);
    await slow.promise;
    await Promise.resolve();
    expect(shown(visit)).toEqual(['Cy', 'Ann']);
  });
});

describe("VisitReads: the owner's removals and restores", () => {
  it('reads them when the visit opens and after each subscription, one read at a time, each from the last change applied', async () => {
    localStorage.clear();
    const zed: LogEntry = { id: 5, created_at: '2024-04-01T10:00:00+00:00', name: 'Zed', message: 'Old' };
    const answers = [deferred<CaughtUpChanges>(), deferred<CaughtUpChanges>()];
    const changes = vi.fn((_known: Removals) => (answers[changes.mock.calls.length - 1] as (typeof answers)[number]).promise);
    const { visit } = visitReads(WHOLE, null, changes);
    const heard = vi.fn();
    visit.onArrived(heard);
    await open(visit);
    expect(changes).toHaveBeenCalledExactlyOnceWith({ cursor: null, removed: [] });
    readAt(reads, 0).page([bo, ann]);
    await readAt(reads, 0).finish();
    idle.splice(0).forEach((task) => task());
    readNewer.mockResolvedValueOnce([]);
    listeners[0]?.onStatus('SUBSCRIBED');
    await vi.waitFor(() => expect(readNewer).toHaveBeenCalledTimes(1));
    await Promise.resolve();
    // The subscription's read of the changes waits for the one in flight, and starts where it ends.
    expect(changes).toHaveBeenCalledTimes(1);
    answers[0]?.resolve({ removed: [], added: [zed], cursor: 4 });
    await vi.waitFor(() => expect(shown(visit)).toEqual(['Bo', 'Ann', 'Zed']));
    await vi.waitFor(() => expect(changes).toHaveBeenCalledTimes(2));
    expect(changes.mock.calls[1]?.[0].cursor).toBe(4);
    answers[1]?.resolve({ removed: [ann.id], added: [], cursor: 6 });
    await vi.waitFor(() => expect(shown(visit)).toEqual(['Bo', 'Zed']));
    // Neither is an arrival.
    expect(heard).not.toHaveBeenCalled();
  });
});
