import { createClient } from 'geocache-client';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const env = vi.hoisted(() => ({ logbookOpen: true, supabaseUrl: '', supabaseAnonKey: '' }));
vi.mock('@/config/env', () => ({ env }));
vi.mock('geocache-client', () => ({ createClient: vi.fn() }));

beforeEach(() => {
  vi.resetModules();
  vi.mocked(createClient).mockReset();
});

async function freshClientModule() {
  return await import('./client');
}

describe('getClient', () => {
  it('creates nothing until first asked', async () => {
    await freshClientModule();
    expect(createClient).not.toHaveBeenCalled();
  });

  it('creates the client once, from the configured URL and anon key, and reuses it', async () => {
    Object.assign(env, { supabaseUrl: 'http://127.0.0.1:54321', supabaseAnonKey: 'anon-key' });
    const client = { listEntries: vi.fn() };
    vi.mocked(createClient).mockReturnValue(client as unknown as ReturnType<typeof createClient>);
    const { getClient } = await freshClientModule();

    expect(getClient()).toBe(client);
    expect(getClient()).toBe(client);
    expect(createClient).toHaveBeenCalledExactlyOnceWith('http://127.0.0.1:54321', 'anon-key');
  });

  it('throws the ConfigError to its caller and tries again next time', async () => {
    Object.assign(env, { supabaseUrl: '', supabaseAnonKey: '' });
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
});
