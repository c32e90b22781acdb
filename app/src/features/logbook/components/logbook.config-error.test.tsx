import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { readEnv, type AppEnv } from '@/config/env';
import { expectConsoleErrors } from '@/testing/console';
import { Logbook } from './logbook';
import { loadClientCode } from '../api/client-code';

// The real api modules run here; only the wasm package and the configuration are replaced.
const env = vi.hoisted(() => ({}) as { -readonly [K in keyof AppEnv]: AppEnv[K] });
vi.mock('@/config/env', async (importOriginal) => ({ ...(await importOriginal<typeof import('@/config/env')>()), env }));
const createClient = vi.hoisted(() => vi.fn());
vi.mock('geocache-client', () => ({ createClient }));

// The wasm client's code has loaded, as on a page whose form is usable (logbook.client-loading.test.tsx covers the time
// before).
beforeAll(async () => {
  await loadClientCode();
});

beforeEach(() => {
  createClient.mockReset();
});

/** Signs, expects the sign to fail with `error`, and checks the form kept what was typed. */
async function signAndExpectFailure(error: Error) {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText('Name:'), 'Bo');
  await user.type(screen.getByLabelText('Message:'), 'TFTC');
  await user.click(screen.getByRole('button', { name: 'Sign Logbook' }));

  await waitFor(() => expectConsoleErrors([['Error inserting log:', error]]));
  expect(screen.getByLabelText('Name:')).toHaveValue('Bo');
  expect(screen.getByLabelText('Message:')).toHaveValue('TFTC');
  expect(screen.getByRole('button', { name: 'Sign Logbook' })).toBeEnabled();
}

describe('Logbook with a client that cannot be created (URL or key missing)', () => {
  it('reports the ConfigError through the normal console paths and keeps the page working', async () => {
    Object.assign(env, readEnv({ VITE_LOGBOOK_OPEN: 'true' }));
    const error = Object.assign(new Error('supabaseUrl is required.'), { name: 'ConfigError', code: 'url_required' });
    createClient.mockImplementation(() => {
      throw error;
    });

    render(<Logbook />);
    await waitFor(() => expectConsoleErrors([['Error fetching logs:', error]]));
    expect(createClient).toHaveBeenCalledWith('', '');
    expect(screen.queryAllByTestId('log-entry')).toHaveLength(0);

    await signAndExpectFailure(error);
  });
});

describe('Logbook with a request timeout that is not a positive whole number (VITE_REQUEST_TIMEOUT_MS=30s)', () => {
  it("reports the page's ConfigError as a missing URL is reported, and calls no client", async () => {
    Object.assign(
      env,
      readEnv({
        VITE_LOGBOOK_OPEN: 'true',
        VITE_SUPABASE_URL: 'http://127.0.0.1:54321',
        VITE_SUPABASE_ANON_KEY: 'anon',
        VITE_REQUEST_TIMEOUT_MS: '30s',
      }),
    );
    const error = env.configError;
    if (!error) throw new Error('expected a configuration error');
    expect(error).toMatchObject({
      name: 'ConfigError',
      code: 'request_timeout_invalid',
      message: 'VITE_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647, e.g. 30000 (got "30s").',
    });

    render(<Logbook />);
    await waitFor(() => expectConsoleErrors([['Error fetching logs:', error]]));
    expect(screen.queryAllByTestId('log-entry')).toHaveLength(0);

    await signAndExpectFailure(error);
    expect(createClient).not.toHaveBeenCalled();
  });
});
