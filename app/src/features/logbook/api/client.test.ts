import { createClient } from 'geocache-client';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppEnv } from '@/config/env';

const env = vi.hoisted(() => ({}) as { -readonly [K in keyof AppEnv]: AppEnv[K] });
vi.mock('@/config/env', () => ({ env }));
vi.mock('geocache-client', () => ({ createClient: vi.fn() }));

beforeEach(() => {
  vi.resetModules();
  vi.mocked(createClient).mockReset();
  Object.assign(env, { logbookOpen: true, supabaseUrl: '', supabaseKey: '', requestTimeoutMs: undefined, configError: null });
});

async function freshClientModule() {
  return await import('./client');
}

function pageConfigError() {
  return Object.assign(new Error('VITE_REQUEST_TIMEOUT_MS must be a whole number of milliseconds ... (got "30s").'), {
    name: 'ConfigError' as const,
    code: 'request_timeout_invalid' as const,
  });
}

describe('getClient', () => {
  it('creates nothing until first asked', async () => {
    await freshClientModule();
    expect(createClient).not.toHaveBeenCalled();
  });

  it('creates the client once, from the configured URL and anon key, and reuses it', async () => {
    Object.assign(env, { supabaseUrl: 'http://127.0.0.1:54321', supabaseKey: 'anon-key' });
    const client = { listEntries: vi.fn() };
    vi.mocked(createClient).mockReturnValue(client as unknown as ReturnType<typeof createClient>);
    const { getClient } = await freshClientModule();

    expect(getClient()).toBe(client);
    expect(getClient()).toBe(client);
    // No request timeout configured: no options, so the client's own default applies.
    expect(createClient).toHaveBeenCalledExactlyOnceWith('http://127.0.0.1:54321', 'anon-key');
  });

  it('passes a configured request timeout as { requestTimeoutMs }', async () => {
    Object.assign(env, { supabaseUrl: 'http://127.0.0.1:54321', supabaseKey: 'anon-key', requestTimeoutMs: 5000 });
    const client = { listEntries: vi.fn() };
    vi.mocked(createClient).mockReturnValue(client as unknown as ReturnType<typeof createClient>);
    const { getClient } = await freshClientModule();

    expect(getClient()).toBe(client);
    expect(createClient).toHaveBeenCalledExactlyOnceWith('http://127.0.0.1:54321', 'anon-key', { requestTimeoutMs: 5000 });
  });

  it('throws the ConfigError to its caller and tries again next time', async () => {
    const error = Object.assign(new Error('supabaseUrl is required.'), { name: 'ConfigError', code: 'url_required' });
    vi.mocked(createClient).mockImplementation(() => {
      throw error;
    });
    const { getClient } = await freshClientModule();

    expect(() => getClient()).toThrow(error);
    expect(() => getClient()).toThrow(error);
    expect(createClient).toHaveBeenCalledTimes(2);
    expect(createClient).toHaveBeenCalledWith('', '');
  });

  it("throws the page's own ConfigError (an invalid request timeout) as it would the client's, creating no client", async () => {
    const error = pageConfigError();
    Object.assign(env, { supabaseUrl: 'http://127.0.0.1:54321', supabaseKey: 'anon-key', configError: error });
    const { getClient } = await freshClientModule();

    expect(() => getClient()).toThrow(error);
    expect(() => getClient()).toThrow(error);
    expect(createClient).not.toHaveBeenCalled();
  });
});
