import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred } from '@/testing/deferred';
import { expectConsoleErrors } from '@/testing/console';
import { App } from './App';
import { loadClientCode, loadedLogbook, loadLogbook } from './load-logbook';
import { reloadPage } from './reload-page';
import { rootOptions } from './render-app';

vi.mock('@/config/env', () => ({
  env: { logbookOpen: true, supabaseUrl: 'http://127.0.0.1:54321', supabaseKey: 'anon', requestTimeoutMs: undefined, configError: null },
}));
vi.mock('./load-logbook', () => ({ loadLogbook: vi.fn(), loadedLogbook: vi.fn(), loadClientCode: vi.fn() }));
vi.mock('./reload-page', () => ({ reloadPage: vi.fn() }));

function FakeLogbook() {
  return <h1>Geocache Signing Page</h1>;
}

beforeEach(() => {
  vi.mocked(loadLogbook).mockReset();
  vi.mocked(loadedLogbook).mockReset().mockReturnValue(undefined);
  vi.mocked(loadClientCode).mockReset().mockResolvedValue({} as Awaited<ReturnType<typeof loadClientCode>>);
  vi.mocked(reloadPage).mockReset();
});

const chunkFailure = () => new TypeError('Failed to fetch dynamically imported module: http://127.0.0.1:5173/src/features/logbook/components/logbook.tsx');
const tryAgain = () => screen.getByRole('button', { name: 'Try again' });

/** Renders the page while the logbook's code fails to load with `error`, and waits for the message. */
async function renderFailed(error: unknown) {
  vi.mocked(loadLogbook).mockRejectedValueOnce(error);
  render(<App />, rootOptions);
  await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('The logbook could not be loaded.'));
  expectConsoleErrors([['Error loading the logbook:', error]]);
}

describe('App when the logbook cannot be loaded (its code or the wasm client)', () => {
  it('shows the title, says so instead of a blank page, and logs the error once', async () => {
    await renderFailed(chunkFailure());
    expect(screen.getByRole('heading', { level: 1, name: 'Geocache Signing Page' })).toBeVisible();
    expect(tryAgain()).toBeEnabled();
    expect(loadLogbook).toHaveBeenCalledTimes(1);
  });

  it('"Try again" loads it again and shows the logbook', async () => {
    await renderFailed(chunkFailure());
    const retry = deferred<typeof FakeLogbook>();
    vi.mocked(loadLogbook).mockReturnValueOnce(retry.promise);

    await userEvent.click(tryAgain());
    expect(loadLogbook).toHaveBeenCalledTimes(2);
    // The message stays while the retry is under way; the button cannot start a second one.
    expect(screen.getByRole('alert')).toHaveTextContent('The logbook could not be loaded.');
    expect(tryAgain()).toBeDisabled();

    await act(async () => {
      retry.resolve(FakeLogbook);
      await retry.promise;
    });
    expect(screen.getByRole('heading', { level: 1, name: 'Geocache Signing Page' })).toBeVisible();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
    expect(reloadPage).not.toHaveBeenCalled();
  });

  it('a retry that fails anew is logged and offered again', async () => {
    await renderFailed(chunkFailure());
    const second = chunkFailure();
    vi.mocked(loadLogbook).mockRejectedValueOnce(second);

    await userEvent.click(tryAgain());
    await waitFor(() => expect(tryAgain()).toBeEnabled());
    expectConsoleErrors([['Error loading the logbook:', second]]);
    expect(screen.getByRole('alert')).toHaveTextContent('The logbook could not be loaded.');
    expect(reloadPage).not.toHaveBeenCalled();
  });

  it('shows the logbook while the wasm client loads, and says so in its place when the client cannot be loaded', async () => {
    vi.mocked(loadLogbook).mockResolvedValue(FakeLogbook);
    const client = deferred<Awaited<ReturnType<typeof loadClientCode>>>();
    vi.mocked(loadClientCode).mockReturnValueOnce(client.promise);
    render(<App />, rootOptions);
    // The logbook (with the entries kept on the device) does not wait for the client.
    expect(await screen.findByRole('heading', { level: 1, name: 'Geocache Signing Page' })).toBeVisible();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();

    const wasmFailure = new TypeError('Failed to fetch');
    await act(async () => {
      client.reject(wasmFailure);
      await client.promise.catch(() => undefined);
    });
    expect(screen.getByRole('alert')).toHaveTextContent('The logbook could not be loaded.');
    expect(tryAgain()).toBeEnabled();
    expectConsoleErrors([['Error loading the logbook:', wasmFailure]]);
  });

  it('reloads the page when the retry fails with the very same error (a module the browser keeps as failed)', async () => {
    const wasmFailure = new TypeError('Failed to fetch');
    vi.mocked(loadLogbook).mockResolvedValue(FakeLogbook);
    vi.mocked(loadClientCode).mockRejectedValueOnce(wasmFailure);
    render(<App />, rootOptions);
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('The logbook could not be loaded.'));
    expectConsoleErrors([['Error loading the logbook:', wasmFailure]]);
    vi.mocked(loadClientCode).mockRejectedValueOnce(wasmFailure);

    await userEvent.click(tryAgain());
    await waitFor(() => expect(reloadPage).toHaveBeenCalledTimes(1));
    // Nothing more is logged: the error was logged when it first happened.
  });

  it('renders the logbook at once, without loading anything, when main.tsx has already loaded it', () => {
    vi.mocked(loadedLogbook).mockReturnValue(FakeLogbook);
    render(<App />, rootOptions);
    expect(screen.getByRole('heading', { level: 1, name: 'Geocache Signing Page' })).toBeVisible();
    expect(loadLogbook).not.toHaveBeenCalled();
  });
});
