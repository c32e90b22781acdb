import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { takeConsoleErrors } from '@/testing/console';

// Each factory runs only if its module is imported, so these record what the entry point loaded.
const loaded = vi.hoisted(() => ({ renderApp: 0, prefetch: 0 }));
const loadLogbook = vi.hoisted(() => vi.fn(() => Promise.resolve(() => null)));
const env = vi.hoisted(() => ({ logbookOpen: false, supabaseUrl: '', supabaseKey: '' }));
const renderApp = vi.hoisted(() => vi.fn());
const prefetchLogEntries = vi.hoisted(() => vi.fn());
const paintKeptEntries = vi.hoisted(() => vi.fn(() => true));
/** What the early read of the device's copy finds, when the test says. */
const copyRead = vi.hoisted(() => ({ resolve: (_found: unknown): void => undefined }));
const readCopyEarly = vi.hoisted(() => vi.fn());

vi.mock('@/config/env', () => ({ env }));
vi.mock('./load-logbook', () => ({ loadLogbook }));
vi.mock('@/features/logbook/device-copy/early-read', () => ({ readCopyEarly }));
vi.mock('@/features/logbook/device-copy/paint-kept-entries', () => ({ paintKeptEntries }));

/** Set by a test: the next imports of these modules fail (a chunk that could not be fetched). */
const failures: { renderApp: Error | null; prefetchEntries: Error | null } = { renderApp: null, prefetchEntries: null };

/**
 * The two modules main.tsx imports lazily. Registered afresh for each test (a factory's module is kept until
 * then), once (registrations are applied asynchronously); a factory that throws is run again on the next import.
 */
function mockLazyModules() {
  vi.doMock('./render-app', () => {
    if (failures.renderApp) throw failures.renderApp;
    loaded.renderApp += 1;
    return { renderApp };
  });
  vi.doMock('@/features/logbook/api/prefetch-entries', () => {
    if (failures.prefetchEntries) throw failures.prefetchEntries;
    loaded.prefetch += 1;
    return { prefetchLogEntries };
  });
}

beforeEach(() => {
  vi.resetModules();
  mockLazyModules();
  Object.assign(loaded, { renderApp: 0, prefetch: 0 });
  Object.assign(failures, { renderApp: null, prefetchEntries: null });
  renderApp.mockReset();
  prefetchLogEntries.mockReset();
  readCopyEarly.mockReset().mockImplementation(() => new Promise((resolve) => (copyRead.resolve = resolve)));
  paintKeptEntries.mockReset().mockReturnValue(true);
  loadLogbook.mockReset().mockResolvedValue(() => null);
});
afterEach(() => {
  vi.unstubAllEnvs();
  document.body.replaceChildren();
});

/** Runs main.tsx against a #root that is empty or holds the prerendered teaser, and lets its dynamic imports settle. */
async function start(root: 'empty' | 'prerendered teaser') {
  const mount = document.createElement('div');
  mount.id = 'root';
  if (root === 'prerendered teaser') {
    const main = document.createElement('main');
    main.className = 'teaser';
    main.append(Object.assign(document.createElement('p'), { textContent: 'text' }));
    mount.append(main);
  }
  document.body.append(mount);
  // The build's own switch, which keeps the early read of the device's copy out of the teaser's build.
  vi.stubEnv('VITE_LOGBOOK_OPEN', String(env.logbookOpen));
  await import('./main');
  await vi.waitFor(() => new Promise((resolve) => setTimeout(resolve, 10)));
  return mount;
}

function fetchFailure(chunk: string) {
  return new TypeError(`Failed to fetch dynamically imported module: http://127.0.0.1:5173/assets/${chunk}.js`);
}

/** The one console.error call made since the last claim: its label, and the error the module loader was given. */
function loggedFailure() {
  const calls = takeConsoleErrors();
  expect(calls).toHaveLength(1);
  const [label, error] = calls[0] ?? [];
  // Vitest wraps what a module factory throws; a browser passes the import's own error.
  return { label, cause: error instanceof Error ? error.cause : undefined };
}

describe('the entry point', () => {
  it('leaves a prerendered teaser alone and loads neither React nor the logbook', async () => {
    env.logbookOpen = false;
    await start('prerendered teaser');
    expect(loaded).toEqual({ renderApp: 0, prefetch: 0 });
    expect(loadLogbook).not.toHaveBeenCalled();
    expect(readCopyEarly).not.toHaveBeenCalled();
    expect(document.querySelector('main')).toHaveTextContent('text');
  });

  it('renders the teaser with React when it was not prerendered', async () => {
    env.logbookOpen = false;
    await start('empty');
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(document.getElementById('root')));
    expect(loaded.prefetch).toBe(0);
    expect(loadLogbook).not.toHaveBeenCalled();
  });

  it('with the logbook open and no copy on the device, loads its code and starts its first load while React loads, and renders the page', async () => {
    env.logbookOpen = true;
    await start('empty');
    copyRead.resolve(null);
    await vi.waitFor(() => expect(loadLogbook).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(prefetchLogEntries).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(document.getElementById('root')));
  });

  it('with the logbook open, renders over the prerendered logbook only once the logbook\'s code is there', async () => {
    env.logbookOpen = true;
    let loadedLogbook: (component: () => null) => void = () => undefined;
    loadLogbook.mockReturnValue(new Promise((resolve) => (loadedLogbook = resolve)));
    await start('prerendered teaser');
    copyRead.resolve(null);
    await vi.waitFor(() => expect(loaded.renderApp).toBe(1));
    expect(renderApp).not.toHaveBeenCalled();
    expect(document.querySelector('main')).toHaveTextContent('text');
    loadedLogbook(() => null);
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(document.getElementById('root')));
  });

  it('paints the entries kept on the device into the served HTML while React loads', async () => {
    env.logbookOpen = true;
    loadLogbook.mockReturnValue(new Promise(() => undefined));
    const root = await start('empty');
    expect(readCopyEarly).toHaveBeenCalledTimes(1);
    const entries = [{ id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'Hi' }];
    copyRead.resolve({ entries, updatedAt: 1, reconciledAt: 1 });
    await vi.waitFor(() => expect(paintKeptEntries).toHaveBeenCalledExactlyOnceWith(root, entries));
    expect(renderApp).not.toHaveBeenCalled();
  });

  it('on a repeat visit, starts React, the logbook\'s code and its read only once the kept entries are drawn', async () => {
    env.logbookOpen = true;
    let drawFrame: FrameRequestCallback = () => undefined;
    const frames = vi.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => ((drawFrame = callback), 1));
    await start('empty');
    copyRead.resolve({ entries: [{ id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'Hi' }], updatedAt: 1, reconciledAt: 1 });
    await vi.waitFor(() => expect(paintKeptEntries).toHaveBeenCalledTimes(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(loadLogbook).not.toHaveBeenCalled();
    expect(loaded).toEqual({ renderApp: 0, prefetch: 0 });
    drawFrame(performance.now());
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledTimes(1));
    expect(loadLogbook).toHaveBeenCalledTimes(1);
    expect(prefetchLogEntries).toHaveBeenCalledTimes(1);
    frames.mockRestore();
  });

  it('leaves the page to React when the copy is slow to read: a copy read after React renders is not painted here', async () => {
    env.logbookOpen = true;
    await start('empty');
    expect(loadLogbook).not.toHaveBeenCalled();
    // The read has not answered within KEPT_ENTRIES_WAIT_MS (500 ms): the page starts without it.
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledTimes(1), { timeout: 2000 });
    copyRead.resolve({ entries: [{ id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'Hi' }], updatedAt: 1, reconciledAt: 1 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(paintKeptEntries).not.toHaveBeenCalled();
  });

  it('leaves a failed early load of the logbook to the page (no unhandled rejection, nothing logged here)', async () => {
    env.logbookOpen = true;
    loadLogbook.mockRejectedValue(fetchFailure('logbook'));
    failures.prefetchEntries = fetchFailure('prefetch-entries');
    await start('empty');
    copyRead.resolve(null);
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledTimes(1));
    expect(prefetchLogEntries).not.toHaveBeenCalled();
    // An unhandled rejection would fail the run; an unclaimed console.error fails the test.
  });
});

describe('the entry point when React cannot be loaded', () => {
  it('with the logbook open, shows its title and a message in #root, logs the error, and tries again', async () => {
    env.logbookOpen = true;
    const failure = fetchFailure('render-app');
    failures.renderApp = failure;
    const root = await start('empty');
    copyRead.resolve(null);

    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('The logbook could not be loaded.'));
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Geocache Signing Page');
    expect(loggedFailure()).toEqual({ label: 'Error loading the page:', cause: failure });
    expect(renderApp).not.toHaveBeenCalled();

    // Still failing: the message stays, and the new failure is logged.
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(takeConsoleErrors()).toHaveLength(1));
    expect(screen.getByRole('alert')).toHaveTextContent('The logbook could not be loaded.');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeEnabled();

    failures.renderApp = null;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(root));
    // React replaces the message in its first commit (render-app.test.tsx), so nothing blank is shown between.
    expect(screen.getByRole('alert')).toBeInTheDocument();
  });

  it('with the teaser not prerendered, says the page could not be loaded', async () => {
    env.logbookOpen = false;
    const failure = fetchFailure('render-app');
    failures.renderApp = failure;
    await start('empty');

    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('The page could not be loaded.'));
    expect(screen.queryByRole('heading')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeEnabled();
    expect(loggedFailure()).toEqual({ label: 'Error loading the page:', cause: failure });
  });
});
