import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectConsoleErrors } from '@/testing/console';
import { fakeEntryList } from '@/testing/fake-entry-list';
import { openDeviceCopy } from '../device-copy/copy-store';
import { Logbook } from './logbook';
import type { EntryList, ListOptions, LogEntry, NewEntry, SignOptions } from '../types';

// The wasm client's code (api/client.ts and the .wasm behind it) arrives only when the test says so: the module
// is imported lazily, and its factory waits for `client.arrive()`.
const client = vi.hoisted(() => {
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  return {
    arrived,
    arrive,
    listEntries: vi.fn<(options?: ListOptions) => Promise<EntryList>>(),
    signLogbook: vi.fn<(entry: NewEntry, options?: SignOptions) => Promise<void>>(),
  };
});
vi.mock('../api/client', async () => {
  await client.arrived;
  return { getClient: () => ({ listEntries: client.listEntries, signLogbook: client.signLogbook }) };
});

const ann: LogEntry = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'First!' };
const bo: LogEntry = { id: 2, created_at: '2024-05-02T10:00:00+00:00', name: 'Bo', message: 'TFTC' };
const cy: LogEntry = { id: 3, created_at: '2024-05-03T10:00:00+00:00', name: 'Cy', message: 'Hi' };

beforeEach(() => {
  vi.stubGlobal('indexedDB', new IDBFactory());
});
afterEach(() => {
  vi.unstubAllGlobals();
});

function shownNames() {
  return screen.queryAllByTestId('log-entry').map((card) => card.querySelector('[dir="auto"]')?.textContent);
}

function controls() {
  return [screen.getByLabelText('Name:'), screen.getByLabelText('Message:'), screen.getByRole('button', { name: 'Sign Logbook' })];
}

describe('the logbook before the wasm client has loaded', () => {
  it('shows the entries kept on the device at once, takes a sign before the client is ready and sends it once it is, then catches up', async () => {
    const copy = await openDeviceCopy();
    await copy?.replace([bo, ann], { updatedAt: Date.now() - 1000, reconciledAt: Date.now() - 1000 });
    // A list per read, as the client hands over (the page frees each one it no longer shows): the server holds Ann,
    // Bo and Cy, and a catch-up read (`since`) gets the newer two.
    client.listEntries.mockImplementation((options) => Promise.resolve(fakeEntryList(options?.since === undefined ? [cy, bo, ann] : [cy, bo])));
    render(<Logbook />);

    await waitFor(() => expect(shownNames()).toEqual(['Bo', 'Ann']));
    for (const control of controls()) expect(control).toBeEnabled();
    expect(client.listEntries).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText('Name:'), { target: { value: 'Di' } });
    fireEvent.change(screen.getByLabelText('Message:'), { target: { value: 'Early' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign Logbook' }));
    expect(await screen.findByRole('button', { name: 'Signing…' })).toBeDisabled();
    expect(screen.getByRole('status')).toHaveTextContent('Signing…');
    client.signLogbook.mockResolvedValue(undefined);

    await act(async () => {
      client.arrive();
      await client.arrived;
    });
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Signed.'));
    expect(client.signLogbook.mock.calls).toEqual([[{ name: 'Di', message: 'Early' }]]);
    await waitFor(() => expect(shownNames()).toEqual(['Cy', 'Bo', 'Ann']));
    for (const control of controls()) expect(control).toBeEnabled();
    expect(client.listEntries.mock.calls[0]?.[0]?.since).toBe('2024-05-02T09:59:00.000Z');
    expectConsoleErrors([]);
  });
});
