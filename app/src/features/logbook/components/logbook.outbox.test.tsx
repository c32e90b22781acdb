import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectConsoleErrors, takeConsoleErrors } from '@/testing/console';
import { fakeEntryList } from '@/testing/fake-entry-list';
import { getClient } from '../api/client';
import { Logbook } from './logbook';
import { loadClientCode } from '../api/client-code';
import { OfflineSignError } from '../sign/offline-sign-error';
import { OutboxDeliveryError } from '../outbox/delivery-error';
import { OUTBOX_CHANNEL } from '../outbox/outbox-channel';
import { openOutbox } from '../outbox/outbox-store';
import type { OutboxNews, RefusedSign } from '../outbox/sign-news';
import { announceOnPage } from '@/components/announcements/page-announcement';
import type { EntryList, ListOptions, LogEntry, NewEntry, PlainRequest, SignOptions } from '../types';

vi.mock('../api/client', () => ({ getClient: vi.fn() }));

const KEY = '123e4567-e89b-42d3-a456-426614174000';
const listEntries = vi.fn<(options?: ListOptions) => Promise<EntryList>>();
const signLogbook = vi.fn<(entry: NewEntry, options?: SignOptions) => Promise<void>>();
const signRequest = vi.fn((entry: NewEntry, options?: SignOptions): Promise<PlainRequest> =>
  Promise.resolve({
    method: 'POST',
    url: 'http://127.0.0.1:9/rest/v1/geocache_logs',
    headers: { apikey: 'k', 'idempotency-key': options?.idempotencyKey ?? KEY },
    body: JSON.stringify(entry),
  }),
);
const fetchMock = vi.fn<(url: string, init: RequestInit) => Promise<Response>>();

const bo: LogEntry = { id: 2, created_at: '2024-05-02T10:00:00+00:00', name: 'Bo', message: 'TFTC' };

function unreachable() {
  return Object.assign(new Error('network failure'), { name: 'LogbookError', code: 'network_error', status: 0, outcome: 'unknown', idempotencyKey: KEY });
}

// The wasm client's code has loaded, as on a page whose form is usable (logbook.client-loading.test.tsx covers the time
// before).
beforeAll(async () => {
  await loadClientCode();
});

beforeEach(() => {
  vi.stubGlobal('indexedDB', new IDBFactory());
  vi.stubGlobal('fetch', fetchMock);
  fetchMock.mockReset().mockRejectedValue(new TypeError('Failed to fetch'));
  listEntries.mockReset().mockResolvedValue(fakeEntryList([]));
  signLogbook.mockReset();
  signRequest.mockClear();
  vi.mocked(getClient).mockReturnValue({ listEntries, signLogbook, signRequest } as unknown as ReturnType<typeof getClient>);
});
afterEach(() => {
  vi.unstubAllGlobals();
});

async function signAs(name: string, message: string) {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText('Name:'), name);
  await user.type(screen.getByLabelText('Message:'), message);
  await user.click(screen.getByRole('button', { name: 'Sign Logbook' }));
}

describe('a sign that cannot reach the server', () => {
  it('is kept on the device with its key, shown as waiting in words, and the fields keep the text', async () => {
    const failure = unreachable();
    signLogbook.mockRejectedValueOnce(failure);
    render(<Logbook />);
    await signAs('Bo', 'TFTC');

    const card = await screen.findByTestId('pending-entry');
    expect(card).toHaveTextContent('Waiting to be sent');
    expect(card).toHaveTextContent('Bo');
    expect(screen.getByRole('status')).toHaveTextContent('Saved on this device: it will be sent when the connection returns.');
    expect(screen.getByLabelText('Name:')).toHaveValue('Bo');
    expect(signRequest).toHaveBeenCalledWith({ name: 'Bo', message: 'TFTC' }, { idempotencyKey: KEY });
    expectConsoleErrors([['Error inserting log:', failure]]);
  });

  it('is sent when the connection returns, once, and then the fields are cleared and the list reloaded', async () => {
    const failure = unreachable();
    signLogbook.mockRejectedValueOnce(failure);
    render(<Logbook />);
    await signAs('Bo', 'TFTC');
    await screen.findByTestId('pending-entry');
    expectConsoleErrors([['Error inserting log:', failure]]);

    fetchMock.mockReset().mockResolvedValue(new Response('', { status: 201 }));
    listEntries.mockResolvedValue(fakeEntryList([bo]));
    await act(async () => {
      window.dispatchEvent(new Event('online'));
      await Promise.resolve();
    });
    await waitFor(() => expect(screen.queryByTestId('pending-entry')).toBeNull());
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe('http://127.0.0.1:9/rest/v1/geocache_logs');
    expect(init?.headers).toEqual({ apikey: 'k', 'idempotency-key': KEY });
    await waitFor(() => expect(screen.getAllByTestId('log-entry')).toHaveLength(1));
    expect(screen.getByLabelText('Name:')).toHaveValue('');
    expect(screen.getByRole('status')).toHaveTextContent('Signed: the sign saved on this device was sent.');
    // The tab that delivered it reads the list once more, not again for its own news on the channel.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(listEntries).toHaveBeenCalledTimes(2);
  });

  it('signed again with the same text while it waits reuses its key, and leaves the outbox', async () => {
    const failure = unreachable();
    signLogbook.mockRejectedValueOnce(failure).mockResolvedValueOnce(undefined);
    render(<Logbook />);
    await signAs('Bo', 'TFTC');
    await screen.findByTestId('pending-entry');
    expectConsoleErrors([['Error inserting log:', failure]]);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign Logbook' }));
    await waitFor(() => expect(screen.queryByTestId('pending-entry')).toBeNull());
    expect(signLogbook.mock.calls[1]).toEqual([{ name: 'Bo', message: 'TFTC' }, { idempotencyKey: KEY }]);
  });

  it('made offline is kept at once, without waiting out the client, and logged as an insert that did not arrive', async () => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    render(<Logbook />);
    await signAs('Bo', 'TFTC');
    await screen.findByTestId('pending-entry');
    expect(signLogbook).not.toHaveBeenCalled();
    expect(screen.getByRole('status')).toHaveTextContent('Saved on this device');
    // As when the insert is tried and fails: the seed logs every insert that does not reach the server.
    const logged = takeConsoleErrors();
    expect(logged).toHaveLength(1);
    const [label, error] = logged[0] ?? [];
    expect(label).toBe('Error inserting log:');
    expect(error).toBeInstanceOf(OfflineSignError);
    expect(error).toMatchObject({ name: 'LogbookError', code: 'network_error', status: 0, outcome: 'not_stored', idempotencyKey: KEY });
    vi.restoreAllMocks();
  });

  it('is not kept when the server refused it (a 500 is final too)', async () => {
    const refused = Object.assign(new Error('boom'), { name: 'LogbookError', code: 'server_error', status: 500, outcome: 'unknown', idempotencyKey: KEY });
    signLogbook.mockRejectedValueOnce(refused);
    render(<Logbook />);
    await signAs('Bo', 'TFTC');
    await waitFor(() => expectConsoleErrors([['Error inserting log:', refused]]));
    expect(screen.queryByTestId('pending-entry')).toBeNull();
    expect(screen.getByRole('status')).toHaveTextContent('Not signed: the logbook had an error; please try again.');
    expect(signRequest).not.toHaveBeenCalled();
  });

  it('fails as any other sign when the device cannot keep it', async () => {
    vi.stubGlobal('indexedDB', undefined);
    const failure = unreachable();
    signLogbook.mockRejectedValueOnce(failure);
    render(<Logbook />);
    await signAs('Bo', 'TFTC');
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Not signed: there is no connection'));
    expectConsoleErrors([['Error inserting log:', failure]]);
    expect(screen.queryByTestId('pending-entry')).toBeNull();
    expect(screen.getByLabelText('Name:')).toHaveValue('Bo');
  });
});

/** What another tab, or the service worker, says on the outbox's channel after its round. */
function newsFromElsewhere(news: Omit<OutboxNews, 'from'>) {
  const channel = new BroadcastChannel(OUTBOX_CHANNEL);
  channel.postMessage({ from: 'another tab', ...news });
  channel.close();
}

const refusedBo: RefusedSign = { key: KEY, name: 'Bo', message: 'TFTC', refusal: { status: 401, code: '42501', message: 'denied' } };

describe('a kept sign delivered or refused elsewhere (another tab, the service worker)', () => {
  async function keptSign() {
    const failure = unreachable();
    signLogbook.mockRejectedValueOnce(failure);
    render(<Logbook />);
    await signAs('Bo', 'TFTC');
    await screen.findByTestId('pending-entry');
    expectConsoleErrors([['Error inserting log:', failure]]);
  }

  it('delivered: the fields are cleared, "sent" is said as for this tab\'s own delivery, and the list is read again', async () => {
    await keptSign();
    // Another tab sent it: the outbox is empty when this tab looks again.
    await (await openOutbox())?.remove(KEY);
    listEntries.mockResolvedValue(fakeEntryList([bo]));
    newsFromElsewhere({ delivered: [{ key: KEY, name: 'Bo', message: 'TFTC' }], refused: [] });
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Signed: the sign saved on this device was sent.'));
    expect(screen.getByLabelText('Name:')).toHaveValue('');
    expect(screen.getByLabelText('Message:')).toHaveValue('');
    await waitFor(() => expect(screen.queryByTestId('pending-entry')).toBeNull());
    await waitFor(() => expect(screen.getAllByTestId('log-entry')).toHaveLength(1));
    expect(fetchMock).not.toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ method: 'POST' }));
  });

  it('delivered with other text: the fields keep what they hold', async () => {
    await keptSign();
    newsFromElsewhere({ delivered: [{ key: 'other', name: 'Cy', message: 'Elsewhere' }], refused: [] });
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Signed: the sign saved on this device was sent.'));
    expect(screen.getByLabelText('Name:')).toHaveValue('Bo');
  });

  it('refused: "not signed" with the reason, logged as "Error inserting log:" once, and the fields keep the text', async () => {
    await keptSign();
    await (await openOutbox())?.refuse(refusedBo);
    newsFromElsewhere({ delivered: [], refused: [refusedBo] });
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Not signed: the logbook does not accept signs from this page.'));
    const logged = takeConsoleErrors();
    expect(logged).toEqual([['Error inserting log:', new OutboxDeliveryError(refusedBo)]]);
    expect(logged[0]?.[1]).toMatchObject({ name: 'LogbookError', code: '42501', status: 401, idempotencyKey: KEY });
    expect(screen.getByLabelText('Name:')).toHaveValue('Bo');
    await waitFor(() => expect(screen.queryByTestId('pending-entry')).toBeNull());
    // Said here, so no later visit says it again; the same news twice is said once.
    await waitFor(async () => expect(await (await openOutbox())?.refusals()).toEqual([]));
    newsFromElsewhere({ delivered: [], refused: [refusedBo] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(takeConsoleErrors()).toEqual([]);
  });

  it('refused by the service worker with no tab open: the next visit says so once', async () => {
    const outbox = await openOutbox();
    await outbox?.refuse(refusedBo);
    const first = render(<Logbook />);
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Not signed: the logbook does not accept signs from this page.'));
    expect(takeConsoleErrors()).toEqual([['Error inserting log:', new OutboxDeliveryError(refusedBo)]]);
    await waitFor(async () => expect(await outbox?.refusals()).toEqual([]));
    first.unmount();

    render(<Logbook />);
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('No entries yet.'));
    expect(takeConsoleErrors()).toEqual([]);
  });
});

describe('what is shown outside the logbook', () => {
  it('is said in the logbook\'s one live region', async () => {
    render(<Logbook />);
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('No entries yet.'));
    act(() => void expect(announceOnPage('A new version is available.')).toBe(true));
    expect(screen.getByRole('status')).toHaveTextContent('A new version is available.');
  });
});

describe('the list', () => {
  it('says "Loading entries…" while the first read runs, then "No entries yet."', async () => {
    let finish: (list: EntryList) => void = () => undefined;
    listEntries.mockReturnValueOnce(new Promise((resolve) => (finish = resolve)));
    render(<Logbook />);
    expect(screen.getByRole('status')).toHaveTextContent('Loading entries…');
    await act(async () => {
      finish(fakeEntryList([]));
      await Promise.resolve();
    });
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('No entries yet.'));
  });

  it('says the entries could not be loaded when the read failed with nothing kept, not "No entries yet."', async () => {
    const error = Object.assign(new Error('down'), { name: 'LogbookError', code: 'network_error', status: 0 });
    listEntries.mockRejectedValueOnce(error);
    render(<Logbook />);
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('The entries could not be loaded.'));
    expectConsoleErrors([['Error fetching logs:', error]]);
  });

  it('says the device is offline with no entries kept when an offline read failed', async () => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    const error = Object.assign(new Error('offline'), { name: 'LogbookError', code: 'network_error', status: 0 });
    listEntries.mockRejectedValueOnce(error);
    render(<Logbook />);
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Offline: no entries are kept on this device.'));
    expectConsoleErrors([['Error fetching logs:', error]]);
    vi.restoreAllMocks();
  });
});
