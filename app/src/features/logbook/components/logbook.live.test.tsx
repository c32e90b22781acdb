import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { StrictMode } from 'react';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { env } from '@/config/env';
import { expectConsoleErrors } from '@/testing/console';
import { fakeEntryList } from '@/testing/fake-entry-list';
import { getClient } from '../api/client';
import { loadedLiveCode, loadLiveCode } from '../api/live-code';
import { openDeviceCopy } from '../device-copy/copy-store';
import { Logbook } from './logbook';
import { SignForm } from './sign-form';
import type { EntryList, ListOptions, LiveStatus, LogChange, LogEntry, NewEntry } from '../types';

vi.mock('../api/client', () => ({ getClient: vi.fn() }));
vi.mock('../api/live-code', () => ({ loadLiveCode: vi.fn(), loadedLiveCode: vi.fn() }));

type LiveModule = NonNullable<ReturnType<typeof loadedLiveCode>>;

// The real form, its renders counted.
vi.mock('./sign-form', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./sign-form')>();
  return { ...actual, SignForm: vi.fn(actual.SignForm) };
});

/** The client's realtime channel as supabase-js shapes it, driven by the test. */
class FakeChannel {
  readonly joins: { type: string; filter: unknown }[] = [];
  insert: ((payload: { new: unknown; old?: unknown }) => void) | undefined;
  remove: ((payload: { new?: unknown; old: unknown }) => void) | undefined;
  status: ((status: LiveStatus, error?: unknown) => void) | undefined;
  on(type: string, filter: { event: string }, callback: (payload: { new?: unknown; old?: unknown }) => void) {
    this.joins.push({ type, filter });
    if (filter.event === 'DELETE') this.remove = callback;
    else this.insert = callback;
    return this;
  }
  subscribe(callback: (status: LiveStatus, error?: unknown) => void) {
    this.status = callback;
    return this;
  }
}

const listEntries = vi.fn<(options?: ListOptions) => Promise<EntryList>>();
const signLogbook = vi.fn<(entry: NewEntry) => Promise<void>>();
const removeChannel = vi.fn<(channel: FakeChannel) => Promise<string>>();
/** The owner's removals and restores (geocache_log_changes), oldest first; and the entries that exist by id. */
let changes: LogChange[] = [];
let existing: LogEntry[] = [];
const listChanges = vi.fn((after: number, limit: number) => Promise.resolve(changes.filter(({ seq }) => seq > after).slice(0, limit)));
const entriesById = vi.fn((ids: Float64Array) => Promise.resolve(fakeEntryList(existing.filter((entry) => ids.includes(entry.id)))));
let channels: FakeChannel[] = [];
const channel = vi.fn((_name: string, _options: unknown) => {
  const made = new FakeChannel();
  channels.push(made);
  return made;
});
/** The live client's module (wasm/pkg-live), loaded when the logbook first listens. */
const createRealtimeClient = vi.fn((_url: string, _key: string) => ({ channel, removeChannel }));
const liveModule = { createRealtimeClient } as unknown as LiveModule;
let liveLoaded = false;

beforeEach(async () => {
  // The previous test's logbook leaves its channel at the end of the task it closed in.
  await new Promise((resolve) => setTimeout(resolve));
  // A device that keeps a copy, empty at first: the first read is whole.
  vi.stubGlobal('indexedDB', new IDBFactory());
  // The removals this device learned, and the first-frame cards, are the previous test's device's.
  localStorage.clear();
  channels = [];
  listEntries.mockReset();
  signLogbook.mockReset();
  removeChannel.mockReset().mockResolvedValue('ok');
  channel.mockClear();
  vi.mocked(getClient).mockReset();
  changes = [];
  existing = [];
  listChanges.mockClear();
  vi.mocked(getClient).mockReturnValue({
    listEntries,
    signLogbook,
    listChanges,
    entriesById,
    newestChange: () => Promise.resolve(changes.at(-1)?.seq ?? 0),
  } as unknown as ReturnType<typeof getClient>);
  liveLoaded = false;
  vi.mocked(loadedLiveCode).mockImplementation(() => (liveLoaded ? liveModule : undefined));
  vi.mocked(loadLiveCode).mockReset().mockImplementation(() => {
    liveLoaded = true;
    return Promise.resolve(liveModule);
  });
});

const ann: LogEntry = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'First!' };
const bo: LogEntry = { id: 2, created_at: '2024-05-02T10:00:00+00:00', name: 'Bo', message: 'TFTC' };
const cy: LogEntry = { id: 3, created_at: '2024-05-03T10:00:00.250+00:00', name: 'Cy', message: 'Hi' };
const dee: LogEntry = { id: 4, created_at: '2024-05-04T10:00:00+00:00', name: 'Dee', message: 'Yo' };

function shownNames() {
  return screen.queryAllByTestId('log-entry').map((card) => card.querySelector('[dir="auto"]')?.textContent);
}
function status() {
  return screen.getByTestId('logbook-status');
}
function live(): FakeChannel {
  const last = channels[channels.length - 1];
  if (!last) throw new Error('no channel was opened');
  return last;
}

/** Renders the logbook, waits for its first read, and subscribes its channel (which asks for a catch-up read). */
async function renderSubscribed(entries: LogEntry[], catchUp: LogEntry[] = []) {
  listEntries.mockResolvedValueOnce(fakeEntryList(entries));
  const view = render(<Logbook />);
  await waitFor(() => expect(shownNames()).toHaveLength(entries.length));
  listEntries.mockResolvedValueOnce(fakeEntryList(catchUp));
  // The channel is joined once the browser is idle after the read (lib/when-idle.ts).
  await waitFor(() => live());
  act(() => live().status?.('SUBSCRIBED'));
  await waitFor(() => expect(listEntries).toHaveBeenCalledTimes(2));
  await act(() => Promise.resolve());
  return view;
}

function insert(row: unknown) {
  act(() => live().insert?.({ new: row }));
}

describe('the live logbook', () => {
  it('joins its channel only once the browser is idle after the read, so the list is painted first', async () => {
    const idle: (() => void)[] = [];
    vi.stubGlobal('requestIdleCallback', (task: () => void) => idle.push(task));
    listEntries.mockResolvedValueOnce(fakeEntryList([ann]));
    render(<Logbook />);
    await waitFor(() => expect(shownNames()).toEqual(['Ann']));
    await act(() => new Promise((resolve) => setTimeout(resolve, 20)));
    expect(channel).not.toHaveBeenCalled();
    act(() => idle.splice(0).forEach((task) => task()));
    await waitFor(() => expect(channel).toHaveBeenCalledTimes(1));
  });

  it('listens for inserts into public.geocache_logs on one channel', async () => {
    await renderSubscribed([ann]);
    expect(channel).toHaveBeenCalledTimes(1);
    expect(channel).toHaveBeenCalledWith('geocache_logs', { config: {} });
    expect(live().joins).toEqual([
      { type: 'postgres_changes', filter: { event: 'INSERT', schema: 'public', table: 'geocache_logs' } },
      { type: 'postgres_changes', filter: { event: 'DELETE', schema: 'public', table: 'geocache_logs' } },
    ]);
  });

  it('drops an entry the owner removed, without a reload or a word in the live region, and never shows it again', async () => {
    await renderSubscribed([cy, bo, ann]);
    const said = status().textContent;
    act(() => live().remove?.({ old: { id: bo.id } }));
    await waitFor(() => expect(shownNames()).toEqual(['Cy', 'Ann']));
    expect(status().textContent).toBe(said);
    // Heard again as an insert of a new sign, it is no removal: only a restore brings it back (below).
    expect(JSON.parse(localStorage.getItem('geocache-logbook-removals') ?? '{}')).toMatchObject({ removed: [bo.id] });
  });

  it('shows an entry put back by the owner at its place by time, not on top, and says nothing of it', async () => {
    await renderSubscribed([cy, bo, ann]);
    act(() => live().remove?.({ old: { id: bo.id } }));
    await waitFor(() => expect(shownNames()).toEqual(['Cy', 'Ann']));
    const said = status().textContent;
    insert(bo);
    await waitFor(() => expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']));
    expect(status().textContent).toBe(said);
  });

  it('shows an entry signed elsewhere on top, without a read, and announces it', async () => {
    await renderSubscribed([bo, ann]);
    insert({ ...cy, extra_column: true });
    expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']);
    expect(status()).toHaveTextContent(/^A new entry arrived\.$/);
    insert(dee);
    expect(shownNames()).toEqual(['Dee', 'Cy', 'Bo', 'Ann']);
    // A changed text is announced again.
    expect(status()).toHaveTextContent(/^2 new entries arrived\.$/);
    expect(listEntries).toHaveBeenCalledTimes(2);
  });

  it('shows each id once: an insert already listed, or received twice, is neither repeated nor announced', async () => {
    await renderSubscribed([bo, ann]);
    insert(bo);
    expect(shownNames()).toEqual(['Bo', 'Ann']);
    expect(status()).toHaveTextContent(/^$/);
    insert(cy);
    insert(cy);
    expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']);
    expect(status()).toHaveTextContent(/^A new entry arrived\.$/);
  });

  it('shows this page\'s own sign once, and keeps saying "Signed." rather than announcing it as new', async () => {
    await renderSubscribed([ann]);
    const signed = { id: 9, created_at: '2024-06-01T00:00:00+00:00', name: 'Me', message: 'Mine' };
    signLogbook.mockResolvedValue(undefined);
    listEntries.mockResolvedValueOnce(fakeEntryList([ann]));
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Name:'), 'Me');
    await user.type(screen.getByLabelText('Message:'), 'Mine');
    await user.click(screen.getByRole('button', { name: 'Sign Logbook' }));
    await waitFor(() => expect(status()).toHaveTextContent(/^Signed\.$/));
    await waitFor(() => expect(listEntries).toHaveBeenCalledTimes(3));
    // The insert's event comes after the sign's reply and the reload's read.
    insert(signed);
    expect(shownNames()).toEqual(['Me', 'Ann']);
    expect(status()).toHaveTextContent(/^Signed\.$/);
    // Someone else's sign with other words is announced.
    insert({ ...signed, id: 10, created_at: '2024-06-01T00:00:01+00:00', message: 'Not mine' });
    expect(shownNames()).toEqual(['Me', 'Me', 'Ann']);
    expect(status()).toHaveTextContent(/^A new entry arrived\.$/);
  });

  it('counts the arrivals from 0 again once a sign\'s outcome has been said', async () => {
    await renderSubscribed([ann]);
    insert(bo);
    insert(cy);
    expect(status()).toHaveTextContent(/^2 new entries arrived\.$/);
    signLogbook.mockResolvedValue(undefined);
    listEntries.mockResolvedValueOnce(fakeEntryList([cy, bo, ann]));
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Name:'), 'Me');
    await user.type(screen.getByLabelText('Message:'), 'Mine');
    await user.click(screen.getByRole('button', { name: 'Sign Logbook' }));
    await waitFor(() => expect(status()).toHaveTextContent(/^Signed\.$/));
    insert(dee);
    expect(status()).toHaveTextContent(/^A new entry arrived\.$/);
  });

  it('renders the list, not the form, for each arrival (a page left open runs as little per entry as it can)', async () => {
    await renderSubscribed([ann]);
    const before = vi.mocked(SignForm).mock.calls.length;
    insert(bo);
    insert(cy);
    expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']);
    expect(status()).toHaveTextContent(/^2 new entries arrived\.$/);
    expect(vi.mocked(SignForm).mock.calls.length).toBe(before);
  });

  it('after a reconnect reads the rows from a minute before the newest shown, and merges them by id', async () => {
    await renderSubscribed([bo, ann]);
    insert(cy);
    act(() => live().status?.('CLOSED'));
    // Missed while the socket was down: Dee; Cy comes back in the overlap and stays shown once.
    listEntries.mockResolvedValueOnce(fakeEntryList([dee, cy]));
    act(() => live().status?.('SUBSCRIBED'));
    await waitFor(() => expect(shownNames()).toEqual(['Dee', 'Cy', 'Bo', 'Ann']));
    expect(listEntries).toHaveBeenCalledTimes(3);
    expect(listEntries.mock.calls[2]?.[0]?.since).toBe('2024-05-03T09:59:00.250Z');
    expect(status()).toHaveTextContent(/^2 new entries arrived\.$/);
  });

  it('after a reconnect drops the entries removed while the socket was down and shows those put back, saying nothing', async () => {
    // Zed was removed before this visit; the visit starts at the newest change.
    const zed: LogEntry = { id: 5, created_at: '2024-04-01T10:00:00+00:00', name: 'Zed', message: 'Old' };
    changes = [{ seq: 1, entryId: zed.id, change: 'removed' }];
    await renderSubscribed([cy, bo, ann]);
    const said = status().textContent;
    act(() => live().status?.('CLOSED'));
    // Offline: no DELETE or INSERT reaches the page, and events are not replayed.
    changes = [...changes, { seq: 2, entryId: bo.id, change: 'removed' }, { seq: 3, entryId: zed.id, change: 'added' }];
    existing = [cy, ann, zed];
    listEntries.mockResolvedValueOnce(fakeEntryList([cy]));
    act(() => live().status?.('SUBSCRIBED'));
    await waitFor(() => expect(shownNames()).toEqual(['Cy', 'Ann', 'Zed']));
    // Read after each subscription's catch-up, from the last change the visit read.
    expect(listChanges.mock.calls.map(([after]) => after)).toEqual([1, 1, 3]);
    expect(status().textContent).toBe(said);
    // Learned on this device: Bo is never painted here again.
    expect(JSON.parse(localStorage.getItem('geocache-logbook-removals') ?? '{}')).toMatchObject({ removed: [bo.id] });
  });

  it('loads the live client and listens only once the first read has settled, then catches up', async () => {
    let answer: (list: EntryList) => void = () => undefined;
    listEntries.mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
    listEntries.mockResolvedValueOnce(fakeEntryList([bo, ann]));
    render(<Logbook />);
    await waitFor(() => expect(listEntries).toHaveBeenCalledTimes(1));
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    // The first entries come first: nothing of the live client is downloaded before them.
    expect(loadLiveCode).not.toHaveBeenCalled();
    expect(channel).not.toHaveBeenCalled();
    act(() => answer(fakeEntryList([ann])));
    await waitFor(() => expect(shownNames()).toEqual(['Ann']));
    await waitFor(() => expect(channel).toHaveBeenCalledTimes(1));
    expect(loadLiveCode).toHaveBeenCalledTimes(1);
    // The page's one realtime client (for every logbook this file opens), from the page's configuration.
    expect(createRealtimeClient).toHaveBeenCalledTimes(1);
    expect(createRealtimeClient).toHaveBeenCalledWith(env.supabaseUrl, env.supabaseKey);
    act(() => live().status?.('SUBSCRIBED'));
    await waitFor(() => expect(shownNames()).toEqual(['Bo', 'Ann']));
    expect(listEntries).toHaveBeenCalledTimes(2);
    expect(listEntries.mock.calls[1]?.[0]?.since).toBe('2024-05-01T09:59:00.000Z');
  });

  it('warns of a catch-up that fails (no console error beyond the spec\'s) and keeps what is shown', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await renderSubscribed([ann]);
    const error = new Error('offline');
    listEntries.mockRejectedValueOnce(error);
    act(() => live().status?.('SUBSCRIBED'));
    await waitFor(() => expect(warn).toHaveBeenCalledWith('Could not catch up on the logbook:', error));
    expectConsoleErrors([]);
    expect(shownNames()).toEqual(['Ann']);
    warn.mockRestore();
  });

  it('skips a row that is not an entry, logging it', async () => {
    await renderSubscribed([ann]);
    const row = { id: 'x', name: 'Bad' };
    insert(row);
    expect(shownNames()).toEqual(['Ann']);
    expectConsoleErrors([['Error reading a new entry:', row]]);
  });

  it('keeps one channel across StrictMode\'s second mount, tells it the status, and leaves it when the logbook closes', async () => {
    listEntries.mockImplementation(() => Promise.resolve(fakeEntryList([ann])));
    const view = render(
      <StrictMode>
        <Logbook />
      </StrictMode>,
    );
    await waitFor(() => expect(shownNames()).toEqual(['Ann']));
    await waitFor(() => live());
    act(() => live().status?.('SUBSCRIBED'));
    await waitFor(() => expect(listEntries.mock.calls.some(([options]) => options?.since !== undefined)).toBe(true));
    expect(channel).toHaveBeenCalledTimes(1);
    expect(removeChannel).not.toHaveBeenCalled();
    insert(bo);
    expect(shownNames()).toEqual(['Bo', 'Ann']);
    view.unmount();
    await waitFor(() => expect(removeChannel).toHaveBeenCalledTimes(1));
    expect(removeChannel).toHaveBeenCalledWith(live());
  });

  it('a logbook opened again listens once its own read has settled, with the same realtime client, and catches up', async () => {
    const first = await renderSubscribed([ann]);
    first.unmount();
    listEntries.mockResolvedValueOnce(fakeEntryList([ann]));
    listEntries.mockResolvedValueOnce(fakeEntryList([bo, ann]));
    render(<Logbook />);
    await waitFor(() => expect(shownNames()).toEqual(['Ann']));
    // The first logbook's channel was left when it closed; the new one joins after its read, as on a first visit.
    await waitFor(() => expect(channel).toHaveBeenCalledTimes(2));
    expect(removeChannel).toHaveBeenCalledTimes(1);
    expect(createRealtimeClient).toHaveBeenCalledTimes(1);
    act(() => live().status?.('SUBSCRIBED'));
    await waitFor(() => expect(shownNames()).toEqual(['Bo', 'Ann']));
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the logbook whose live client cannot be loaded', () => {
  it('says so on the console and shows what its reads bring', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const failure = new TypeError('Failed to fetch dynamically imported module');
      vi.mocked(loadLiveCode).mockImplementation(() => Promise.reject(failure));
      listEntries.mockResolvedValueOnce(fakeEntryList([ann]));
      render(<Logbook />);
      await waitFor(() => expect(shownNames()).toEqual(['Ann']));
      await waitFor(() =>
        expect(warn).toHaveBeenCalledWith(
          'Live entries: the live client could not be loaded; new entries show after a reload.',
          failure,
        ),
      );
      expect(channel).not.toHaveBeenCalled();
      expect(listEntries).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('the live logbook on a device that keeps a copy', () => {
  it('adds the entries that arrive to the device copy, so the next visit shows them at once', async () => {
    await renderSubscribed([bo, ann]);
    const copy = await openDeviceCopy();
    // The first read is kept whole, then the arrival is added to it.
    await waitFor(async () => expect((await copy?.read())?.entries.map((entry) => entry.id)).toEqual([2, 1]));
    insert(cy);
    // Written when the page is hidden, without waiting for the batch.
    Object.defineProperty(document, 'visibilityState', { configurable: true, value: 'hidden' });
    try {
      document.dispatchEvent(new Event('visibilitychange'));
      await waitFor(async () => expect((await copy?.read())?.entries.map((entry) => entry.id)).toEqual([3, 2, 1]));
    } finally {
      Object.defineProperty(document, 'visibilityState', { configurable: true, value: 'visible' });
    }
  });
});
