import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { act, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeEntryList } from '@/testing/fake-entry-list';
import { fakeReads, readAt } from '@/testing/fake-paged-read';
import { getClient } from '../api/client';
import { HEAD_ENTRIES } from '../device-copy/copy-database';
import { openDeviceCopy } from '../device-copy/copy-store';
import { readCopyEarly } from '../device-copy/early-read';
import { OUTBOX_CHANNEL } from '../outbox/outbox-channel';
import { Logbook } from './logbook';
import { loadClientCode } from '../api/client-code';
import type { EntryList, ListOptions, LogEntry } from '../types';

vi.mock('../api/client', () => ({ getClient: vi.fn() }));

const listEntries = vi.fn<(options?: ListOptions) => Promise<EntryList>>();

const ann: LogEntry = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'First!' };
const bo: LogEntry = { id: 2, created_at: '2024-05-02T10:00:00+00:00', name: 'Bo', message: 'TFTC' };
const cy: LogEntry = { id: 3, created_at: '2024-05-03T10:00:00+00:00', name: 'Cy', message: 'Hi' };

// The wasm client's code has loaded, as on a page whose form is usable (logbook.client-loading.test.tsx covers the time
// before).
beforeAll(async () => {
  await loadClientCode();
});

beforeEach(() => {
  vi.stubGlobal('indexedDB', new IDBFactory());
  listEntries.mockReset();
  vi.mocked(getClient).mockReturnValue({ listEntries } as unknown as ReturnType<typeof getClient>);
});
afterEach(() => {
  vi.unstubAllGlobals();
});

function shownNames() {
  return screen.queryAllByTestId('log-entry').map((card) => card.querySelector('[dir="auto"]')?.textContent);
}

async function keep(entries: LogEntry[], reconciledAt: number) {
  const copy = await openDeviceCopy();
  await copy?.replace(entries, { updatedAt: reconciledAt, reconciledAt });
}

describe('a visit with the device copy', () => {
  it('reads only entries from a minute before the newest kept one, and shows each id once', async () => {
    await keep([bo, ann], Date.now() - 1000);
    listEntries.mockImplementation(() => Promise.resolve(fakeEntryList([cy, bo])));
    render(<Logbook />);
    await waitFor(() => expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']));
    await waitFor(async () => expect((await (await openDeviceCopy())?.read())?.entries.map((e) => e.id)).toEqual([3, 2, 1]));
    expect(listEntries.mock.calls.map((call) => call[0]?.since)).toEqual(['2024-05-02T09:59:00.000Z']);
  });

  it('catches up a copy longer than the newest entries the page read first, keeping the older ones', async () => {
    const older: LogEntry[] = Array.from({ length: HEAD_ENTRIES + 5 }, (_, index) => ({
      id: 100 + index,
      created_at: new Date(Date.parse(ann.created_at) - index * 60_000).toISOString(),
      name: `Older ${index}`,
      message: 'm',
    }));
    await keep([bo, ...older], Date.now() - 1000);
    // As the start-up does before React has loaded: only the copy's newest entries are read.
    expect((await readCopyEarly())?.entries).toHaveLength(HEAD_ENTRIES);
    listEntries.mockImplementation(() => Promise.resolve(fakeEntryList([cy, bo])));
    render(<Logbook />);
    // The caught-up copy is the whole one: the older entries are kept with the newer read merged in.
    await waitFor(async () => expect((await (await openDeviceCopy())?.read())?.entries.map((e) => e.id)).toEqual([3, 2, ...older.map((e) => e.id)]));
    expect(listEntries.mock.calls.map((call) => call[0]?.since)).toEqual(['2024-05-02T09:59:00.000Z']);
  });

  it('reads every entry when the copy was last reconciled over a day ago, dropping the ones the owner removed', async () => {
    await keep([bo, ann], Date.now() - 25 * 60 * 60 * 1000);
    listEntries.mockImplementation(() => Promise.resolve(fakeEntryList([cy, ann])));
    render(<Logbook />);
    await waitFor(() => expect(shownNames()).toEqual(['Cy', 'Ann']));
    expect(listEntries.mock.calls[0]?.[0]?.since).toBeUndefined();
    await waitFor(async () => {
      const kept = await (await openDeviceCopy())?.read();
      expect(kept?.entries.map((e) => e.id)).toEqual([3, 1]);
      expect(Date.now() - (kept?.reconciledAt ?? 0)).toBeLessThan(60_000);
    });
  });

  it('keeps a whole read on the device once the browser is idle after painting it', async () => {
    const idle: (() => void)[] = [];
    vi.stubGlobal('requestIdleCallback', (task: () => void) => idle.push(task));
    listEntries.mockImplementation(() => Promise.resolve(fakeEntryList([bo, ann])));
    render(<Logbook />);
    await waitFor(() => expect(shownNames()).toEqual(['Bo', 'Ann']));
    await waitFor(() => expect(idle.length).toBeGreaterThan(0));
    expect(await (await openDeviceCopy())?.read()).toBeNull();
    act(() => idle.splice(0).forEach((task) => task()));
    await waitFor(async () => expect((await (await openDeviceCopy())?.read())?.entries.map((e) => e.id)).toEqual([2, 1]));
  });

  it('keeps the caught-up copy shown while a later whole read arrives, then shows that read alone', async () => {
    await keep([bo, ann], Date.now() - 1000);
    const reads = fakeReads();
    listEntries.mockImplementation(reads.listEntries);
    render(<Logbook />);
    await waitFor(() => expect(reads.started).toHaveLength(1));
    readAt(reads, 0).page([cy]);
    await act(() => readAt(reads, 0).finish());
    await waitFor(() => expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']));

    // Another tab delivered a sign: the list is read whole again.
    const channel = new BroadcastChannel(OUTBOX_CHANNEL);
    channel.postMessage({ from: 'another tab', delivered: [{ key: 'k', name: 'Cy', message: 'm' }], refused: [] });
    channel.close();
    await waitFor(() => expect(reads.started).toHaveLength(2));
    expect(listEntries.mock.calls[1]?.[0]?.since).toBeUndefined();
    act(() => void readAt(reads, 1).page([cy]));
    // One page in: the list does not drop back to that page.
    expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']);
    act(() => void readAt(reads, 1).page([cy, ann]));
    await act(() => readAt(reads, 1).finish());
    // The owner removed Bo: the whole read drops it.
    await waitFor(() => expect(shownNames()).toEqual(['Cy', 'Ann']));
  });
});
