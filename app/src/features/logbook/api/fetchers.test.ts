import { beforeEach, describe, expect, it, vi } from 'vitest';
import { getClient } from './client';
import { fetchLogEntries } from './list-entries';
import { signLogbook } from './sign-logbook';

vi.mock('./client', () => ({ getClient: vi.fn() }));

const configError = Object.assign(new Error('supabaseKey is required.'), { name: 'ConfigError', code: 'key_required' });

beforeEach(() => {
  vi.mocked(getClient).mockReset();
});

describe('fetchers', () => {
  it('fetchLogEntries resolves to what the client returned', async () => {
    const entries = [{ id: 1, created_at: '2024-01-01T00:00:00+00:00', name: 'Ann', message: 'Hi' }];
    vi.mocked(getClient).mockReturnValue({ listEntries: () => Promise.resolve(entries) } as unknown as ReturnType<
      typeof getClient
    >);
    await expect(fetchLogEntries()).resolves.toBe(entries);
  });

  it('signLogbook passes the entry through untouched', async () => {
    const sign = vi.fn(() => Promise.resolve(undefined));
    vi.mocked(getClient).mockReturnValue({ signLogbook: sign } as unknown as ReturnType<typeof getClient>);
    const entry = { name: ' Ann ', message: '\n hi \n' };
    await expect(signLogbook(entry)).resolves.toBeUndefined();
    expect(sign).toHaveBeenCalledExactlyOnceWith(entry);
  });

  it('turn a client-creation failure into a rejection rather than a synchronous throw', async () => {
    vi.mocked(getClient).mockImplementation(() => {
      throw configError;
    });
    const listing = fetchLogEntries();
    const signing = signLogbook({ name: 'Ann', message: 'Hi' });
    await expect(listing).rejects.toBe(configError);
    await expect(signing).rejects.toBe(configError);
  });
});
