import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getClient } from '@/features/logbook/api/client';
import { fakeEntryList } from '@/testing/fake-entry-list';
import { expectConsoleErrors } from '@/testing/console';
import { App } from './App';
import { rootOptions } from './render-app';
import { loadClientCode } from '@/features/logbook/api/client-code';
import type { EntryList, LogEntry } from '@/features/logbook/types';

const loaded = vi.hoisted(() => ({ logbook: false }));

vi.mock('@/config/env', () => ({
  env: { logbookOpen: true, supabaseUrl: 'http://127.0.0.1:54321', supabaseKey: 'anon', requestTimeoutMs: undefined, configError: null },
}));
vi.mock('@/features/logbook/components/logbook', async (importOriginal) => {
  loaded.logbook = true;
  return await importOriginal();
});
vi.mock('@/features/logbook/api/client', () => ({ getClient: vi.fn() }));

const listEntries = vi.fn<() => Promise<EntryList>>();

// The wasm client's code has loaded, as on a page whose form is usable (logbook.client-loading.test.tsx covers the time
// before).
beforeAll(async () => {
  await loadClientCode();
});

beforeEach(() => {
  listEntries.mockReset();
  vi.mocked(getClient).mockReturnValue({ listEntries } as unknown as ReturnType<typeof getClient>);
});

const ann: LogEntry = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'First!' };

describe('App with the logbook open (LOGBOOK_OPEN=true)', () => {
  it('loads the logbook lazily and shows it instead of the teaser', async () => {
    listEntries.mockResolvedValue(fakeEntryList([]));
    expect(loaded.logbook).toBe(false);

    render(<App />, rootOptions);

    expect(await screen.findByRole('heading', { level: 1, name: 'Geocache Signing Page' })).toBeVisible();
    expect(loaded.logbook).toBe(true);
    expect(listEntries).toHaveBeenCalledTimes(1);
  });
});

describe('App when the logbook throws while rendering', () => {
  it('shows the title and "could not be shown" instead of a blank page, logs the error, and "Try again" shows it again', async () => {
    // The wasm client trapping while a row is read, as a panic or an out-of-bounds access would.
    const trap = new WebAssembly.RuntimeError('unreachable');
    const broken = Object.assign(fakeEntryList([ann]), {
      name: () => {
        throw trap;
      },
    });
    listEntries.mockResolvedValueOnce(broken);
    render(<App />, rootOptions);

    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('The logbook could not be shown.'));
    expectConsoleErrors([['Error showing the logbook:', trap]]);
    expect(screen.getByRole('heading', { level: 1, name: 'Geocache Signing Page' })).toBeVisible();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();

    listEntries.mockResolvedValueOnce(fakeEntryList([ann]));
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));

    await waitFor(() => expect(screen.getAllByTestId('log-entry')).toHaveLength(1));
    expect(screen.getByTestId('log-entry')).toHaveTextContent('Ann');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Name:')).toBeEnabled();
    expect(listEntries).toHaveBeenCalledTimes(2);
  });
});
