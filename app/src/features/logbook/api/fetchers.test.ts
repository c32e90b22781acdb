import { beforeEach, describe, expect, it, vi } from 'vitest';
import { getClient } from './client';
import { fakeEntryList } from './fake-entry-list';
import { fetchLogEntries, fetchNewestEntries } from './list-entries';
import { signLogbook } from './sign-logbook';

vi.mock('./client', () => ({ getClient: vi.fn() }));

const configError = Object.assign(new Error('supabaseKey is required.'), { name: 'ConfigError', code: 'key_required' });

beforeEach(() => {
  vi.mocked(getClient).mockReset();
});

describe('fetchers', () => {
  it('fetchLogEntries resolves to what the client returned', async () => {
    const entries = fakeEntryList([{ id: 1, created_at: '2024-01-01T00:00:00+00:00', name: 'Ann', message: 'Hi' }]);
    vi.mocked(getClient).mockReturnValue({ listEntries: () => Promise.resolve(entries) } as unknown as ReturnType<
      typeof getClient
    >);
    await expect(fetchLogEntries()).resolves.toBe(entries);
  });

  it('fetchNewestEntries asks for that many entries and resolves to what the client returned', async () => {
    const entries = fakeEntryList([]);
    const listNewestEntries = vi.fn(() => Promise.resolve(entries));
    vi.mocked(getClient).mockReturnValue({ listNewestEntries } as unknown as ReturnType<typeof getClient>);
    await expect(fetchNewestEntries(30)).resolves.toBe(entries);
    expect(listNewestEntries).toHaveBeenCalledExactlyOnceWith(30);
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
    const newest = fetchNewestEntries(30);
    const signing = signLogbook({ name: 'Ann', message: 'Hi' });
    await expect(listing).rejects.toBe(configError);
    await expect(newest).rejects.toBe(configError);
    await expect(signing).rejects.toBe(configError);
  });
});
