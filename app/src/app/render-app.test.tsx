import { act } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadLogbook } from './load-logbook';
import { renderApp } from './render-app';

vi.mock('@/config/env', () => ({
  env: { logbookOpen: true, supabaseUrl: 'http://127.0.0.1:54321', supabaseKey: 'anon', configError: null },
}));
vi.mock('@/features/logbook/components/logbook', () => ({
  Logbook: () => (
    <main className="logbook">
      <h1>rendered</h1>
    </main>
  ),
}));

afterEach(() => {
  document.body.replaceChildren();
});

describe('renderApp over the prerendered logbook', () => {
  it('replaces it with the rendered logbook in one commit, never showing an empty root between', async () => {
    await loadLogbook();
    const root = document.createElement('div');
    const prerendered = Object.assign(document.createElement('main'), { className: 'logbook' });
    prerendered.append(Object.assign(document.createElement('h1'), { textContent: 'prerendered' }));
    root.append(prerendered);
    document.body.append(root);
    const seen: string[] = [];
    const observer = new MutationObserver(() => seen.push(root.textContent ?? ''));
    observer.observe(root, { childList: true, subtree: true, characterData: true });

    await act(async () => {
      renderApp(root);
      await Promise.resolve();
    });
    await act(() => Promise.resolve());
    observer.disconnect();

    expect(root.textContent).toBe('rendered');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).not.toContain('');
    expect(root.querySelectorAll('main')).toHaveLength(1);
  });
});
