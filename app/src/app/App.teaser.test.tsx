import { act, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { teaserParagraphs } from '@/content/teaser';
import { App } from './App';

// Each factory runs only if its module is imported, so these flags record what the page loaded.
const loaded = vi.hoisted(() => ({ logbook: false, api: false, wasm: false, clientsCreated: 0 }));

vi.mock('@/config/env', () => ({
  env: { logbookOpen: false, supabaseUrl: 'http://127.0.0.1:54321', supabaseKey: 'anon' },
}));
vi.mock('@/features/logbook/components/logbook', () => {
  loaded.logbook = true;
  return { Logbook: () => <p>logbook</p> };
});
vi.mock('@/features/logbook/api/client', () => {
  loaded.api = true;
  return { getClient: vi.fn() };
});
vi.mock('geocache-client', () => {
  loaded.wasm = true;
  return {
    createClient: vi.fn(() => {
      loaded.clientsCreated += 1;
    }),
  };
});

describe('App with the logbook closed (the default)', () => {
  it('shows only the teaser and loads nothing of the logbook', async () => {
    const fetch = vi.spyOn(globalThis, 'fetch');
    render(<App />);
    // Give any lazy import a chance to start and settle before looking.
    await act(() => new Promise((resolve) => setTimeout(resolve, 20)));

    expect(screen.getByRole('main')).toHaveTextContent(teaserParagraphs[0] ?? 'missing');
    expect(screen.queryByRole('heading', { name: 'Geocache Signing Page' })).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    expect(screen.queryByRole('button')).not.toBeInTheDocument();
    expect(screen.queryByText('logbook')).not.toBeInTheDocument();

    expect(loaded).toEqual({ logbook: false, api: false, wasm: false, clientsCreated: 0 });
    expect(fetch).not.toHaveBeenCalled();
    fetch.mockRestore();
  });
});
