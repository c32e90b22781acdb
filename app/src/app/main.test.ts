import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Each factory runs only if its module is imported, so these record what the entry point loaded.
const loaded = vi.hoisted(() => ({ renderApp: 0, prefetch: 0 }));
const loadLogbook = vi.hoisted(() => vi.fn(() => Promise.resolve(() => null)));
const env = vi.hoisted(() => ({ logbookOpen: false, supabaseUrl: '', supabaseAnonKey: '' }));
const renderApp = vi.hoisted(() => vi.fn());
const prefetchLogEntries = vi.hoisted(() => vi.fn());

vi.mock('@/config/env', () => ({ env }));
vi.mock('./load-logbook', () => ({ loadLogbook }));
vi.mock('./render-app', () => {
  loaded.renderApp += 1;
  return { renderApp };
});
vi.mock('@/features/logbook/api/list-entries', () => {
  loaded.prefetch += 1;
  return { prefetchLogEntries };
});

beforeEach(() => {
  vi.resetModules();
  Object.assign(loaded, { renderApp: 0, prefetch: 0 });
  renderApp.mockReset();
  prefetchLogEntries.mockReset();
  loadLogbook.mockClear();
});
afterEach(() => {
  document.body.replaceChildren();
});

/** Runs main.tsx against this body and lets its dynamic imports settle. */
async function start(body: string) {
  document.body.innerHTML = body;
  await import('./main');
  await vi.waitFor(() => new Promise((resolve) => setTimeout(resolve, 10)));
}

describe('the entry point', () => {
  it('leaves a prerendered teaser alone and loads neither React nor the logbook', async () => {
    env.logbookOpen = false;
    await start('<div id="root"><main class="teaser"><p>text</p></main></div>');
    expect(loaded).toEqual({ renderApp: 0, prefetch: 0 });
    expect(loadLogbook).not.toHaveBeenCalled();
    expect(document.querySelector('main')).toHaveTextContent('text');
  });

  it('renders the teaser with React when it was not prerendered', async () => {
    env.logbookOpen = false;
    await start('<div id="root"></div>');
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(document.getElementById('root')));
    expect(loaded.prefetch).toBe(0);
    expect(loadLogbook).not.toHaveBeenCalled();
  });

  it('with the logbook open, loads its code and starts its first load while React loads, and renders the page', async () => {
    env.logbookOpen = true;
    await start('<div id="root"></div>');
    expect(loadLogbook).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(prefetchLogEntries).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(document.getElementById('root')));
  });
});
