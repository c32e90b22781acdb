import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { getClient } from '@/features/logbook/api/client';
import { fakeEntryList } from '@/features/logbook/api/fake-entry-list';
import { App } from './App';

const loaded = vi.hoisted(() => ({ logbook: false }));

vi.mock('@/config/env', () => ({
  env: { logbookOpen: true, supabaseUrl: 'http://127.0.0.1:54321', supabaseAnonKey: 'anon' },
}));
vi.mock('@/features/logbook/components/logbook', async (importOriginal) => {
  loaded.logbook = true;
  return await importOriginal();
});
vi.mock('@/features/logbook/api/client', () => ({ getClient: vi.fn() }));

describe('App with the logbook open (LOGBOOK_OPEN=true)', () => {
  it('loads the logbook lazily and shows it instead of the teaser', async () => {
    const listEntries = vi.fn(() => Promise.resolve(fakeEntryList([])));
    const listNewestEntries = vi.fn(() => Promise.resolve(fakeEntryList([])));
    vi.mocked(getClient).mockReturnValue({ listEntries, listNewestEntries } as unknown as ReturnType<typeof getClient>);
    expect(loaded.logbook).toBe(false);

    render(<App />);

    expect(await screen.findByRole('heading', { level: 1, name: 'Geocache Signing Page' })).toBeVisible();
    expect(loaded.logbook).toBe(true);
    expect(listEntries).toHaveBeenCalledTimes(1);
  });
});
