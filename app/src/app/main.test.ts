import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { takeConsoleErrors } from '@/testing/console';

// Each factory runs only if its module is imported, so these record what the entry point loaded.
const loaded = vi.hoisted(() => ({ renderApp: 0, prefetch: 0 }));
const loadLogbook = vi.hoisted(() => vi.fn(() => Promise.resolve(() => null)));
const env = vi.hoisted(() => ({ logbookOpen: false, supabaseUrl: '', supabaseKey: '', configError: null as Error | null }));
const renderApp = vi.hoisted(() => vi.fn());
/** The visit's read the prefetch started, as paintFirstPage is handed it. */
const VISIT = vi.hoisted(() => ({ visit: 'prefetched' }));
const prefetchLogEntries = vi.hoisted(() => vi.fn(() => VISIT));
const paintEntries = vi.hoisted(() => vi.fn((_root: HTMLElement, _rows: unknown) => true));
/** The first page's paint main.tsx asked for: the paint it passed, and how the test settles it. */
const firstPage = vi.hoisted(() => ({
  paint: (_rows: unknown): boolean => false,
  settle: (_painted: boolean): void => undefined,
}));
const paintFirstPage = vi.hoisted(() => vi.fn());
/** What the early read of the device's copy finds, when the test says. */
const copyRead = vi.hoisted(() => ({ resolve: (_found: unknown): void => undefined }));
const readCopyEarly = vi.hoisted(() => vi.fn());

vi.mock('@/config/env', () => ({ env }));
vi.mock('./load-logbook', () => ({ loadLogbook }));
vi.mock('@/features/logbook/device-copy/early-read', () => ({ readCopyEarly }));
vi.mock('@/features/logbook/first-paint/paint-entries', async (importOriginal) => ({ ...(await importOriginal<object>()), paintEntries }));
vi.mock('@/features/logbook/first-paint/first-page', () => ({ paintFirstPage }));

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
  vi.doMock('@/features/logbook/reads/prefetch-entries', () => {
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
  prefetchLogEntries.mockReset().mockReturnValue(VISIT);
  paintFirstPage.mockReset().mockImplementation((_visit: unknown, paint: (rows: unknown) => boolean) => {
    firstPage.paint = paint;
    return new Promise<boolean>((resolve) => (firstPage.settle = resolve));
  });
  Object.assign(env, { supabaseUrl: '', supabaseKey: '', configError: null });
  readCopyEarly.mockReset().mockImplementation(() => new Promise((resolve) => (copyRead.resolve = resolve)));
  paintEntries.mockReset().mockReturnValue(true);
  loadLogbook.mockReset().mockResolvedValue(() => null);
});
afterEach(() => {
  vi.unstubAllEnvs();
  document.body.replaceChildren();
});

/** Runs main.tsx against a #root that is empty or holds the prerendered teaser, and lets its dynamic imports settle. */
async function start(root: 'empty' | 'prerendered teaser' | 'prerendered logbook') {
  const mount = document.createElement('div');
  mount.id = 'root';
  if (root === 'prerendered logbook') {
    // The served list the first entries are painted into (app/build/prerender-logbook.ts).
    const section = document.createElement('section');
    section.className = 'logbook-entries';
    section.append(Object.assign(document.createElement('ul'), { className: 'entry-list' }));
    mount.append(section);
  }
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

  it('with the logbook open, loads its code and starts its first load while React loads, and renders the page', async () => {
    env.logbookOpen = true;
    await start('empty');
    expect(loadLogbook).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(prefetchLogEntries).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(document.getElementById('root')));
  });

  it('with the logbook open, renders over the prerendered logbook only once the logbook\'s code is there', async () => {
    env.logbookOpen = true;
    let loadedLogbook: (component: () => null) => void = () => undefined;
    loadLogbook.mockReturnValue(new Promise((resolve) => (loadedLogbook = resolve)));
    await start('prerendered teaser');
    expect(loaded.renderApp).toBe(1);
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
    await vi.waitFor(() => expect(paintEntries).toHaveBeenCalledTimes(1));
    const [paintedRoot, rows] = paintEntries.mock.calls[0] ?? [];
    expect(paintedRoot).toBe(root);
    expect(rows).toMatchObject({ length: 1 });
    expect((rows as { name: (index: number) => string }).name(0)).toBe('Ann');
    expect(renderApp).not.toHaveBeenCalled();
  });

  it('leaves the page to React once it renders: a copy read after that is not painted here', async () => {
    env.logbookOpen = true;
    await start('empty');
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledTimes(1));
    copyRead.resolve({ entries: [{ id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'Hi' }], updatedAt: 1, reconciledAt: 1 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(paintEntries).not.toHaveBeenCalled();
  });

  it('leaves a failed early load of the logbook to the page (no unhandled rejection, nothing logged here)', async () => {
    env.logbookOpen = true;
    loadLogbook.mockRejectedValue(fetchFailure('logbook'));
    failures.prefetchEntries = fetchFailure('prefetch-entries');
    await start('empty');
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledTimes(1));
    expect(prefetchLogEntries).not.toHaveBeenCalled();
    // An unhandled rejection would fail the run; an unclaimed console.error fails the test.
  });
});

/** Lets the page's pending promises and timers run for a moment. */
const aMoment = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('the entry point with a backend configured: React waits for the first entries', () => {
  const kept = { entries: [{ id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'Hi' }], updatedAt: 1, reconciledAt: 1 };

  beforeEach(() => {
    Object.assign(env, { logbookOpen: true, supabaseUrl: 'https://project.example', supabaseKey: 'sb_publishable_key' });
  });

  it("on a first visit, loads neither React nor the logbook's code until the read has painted its first page", async () => {
    const root = await start('prerendered logbook');
    copyRead.resolve(null);
    await vi.waitFor(() => expect(paintFirstPage).toHaveBeenCalledTimes(1));
    expect(paintFirstPage.mock.calls[0]?.[0]).toBe(VISIT);
    await aMoment();
    expect(loaded.renderApp).toBe(0);
    expect(loadLogbook).not.toHaveBeenCalled();

    // The read's first page arrives: painted into the served HTML, then React and the logbook load.
    const rows = { length: 1 };
    expect(firstPage.paint(rows)).toBe(true);
    expect(paintEntries).toHaveBeenCalledExactlyOnceWith(root, rows);
    expect(performance.getEntriesByName('geocache:first-page-painted')).not.toHaveLength(0);
    firstPage.settle(true);
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(root));
    expect(loadLogbook).toHaveBeenCalledTimes(1);
  });

  it('on a repeat visit, loads React as soon as the kept entries are painted, without waiting for the read', async () => {
    const root = await start('prerendered logbook');
    copyRead.resolve(kept);
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(root));
    expect(paintEntries).toHaveBeenCalledTimes(1);
    // Painted before React: the read's page is not painted over the kept entries, whatever it holds.
    paintEntries.mockClear();
    expect(firstPage.paint({ length: 1 })).toBe(false);
    expect(paintEntries).not.toHaveBeenCalled();
  });

  it('on a repeat visit, loads React and the logbook\'s code only once the frame showing the kept entries is drawn', async () => {
    let drawFrame: FrameRequestCallback = () => undefined;
    const frames = vi.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => ((drawFrame = callback), 1));
    const root = await start('prerendered logbook');
    copyRead.resolve(kept);
    await vi.waitFor(() => expect(paintEntries).toHaveBeenCalledTimes(1));
    await aMoment();
    expect(loaded.renderApp).toBe(0);
    expect(loadLogbook).not.toHaveBeenCalled();
    drawFrame(performance.now());
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(root));
    expect(loadLogbook).toHaveBeenCalledTimes(1);
    frames.mockRestore();
  });

  it('loads React once the read settles without painting (an error, an empty logbook), to report it', async () => {
    await start('prerendered logbook');
    copyRead.resolve(null);
    await vi.waitFor(() => expect(paintFirstPage).toHaveBeenCalledTimes(1));
    await aMoment();
    expect(loaded.renderApp).toBe(0);
    firstPage.settle(false);
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledTimes(1));
  });

  it('leaves entries it cannot paint to React, which renders them and reports what failed', async () => {
    paintEntries.mockImplementation(() => {
      throw new RangeError('Invalid time value');
    });
    const root = await start('prerendered logbook');
    copyRead.resolve(kept);
    await vi.waitFor(() => expect(paintFirstPage).toHaveBeenCalledTimes(1));
    expect(paintEntries).toHaveBeenCalledTimes(1);
    expect(firstPage.paint({ length: 1 })).toBe(false);
    firstPage.settle(false);
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(root));
  });

  it('loads React at once when the read cannot start: its chunk failed to load', async () => {
    failures.prefetchEntries = fetchFailure('prefetch-entries');
    await start('prerendered logbook');
    copyRead.resolve(null);
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledTimes(1));
    expect(paintFirstPage).not.toHaveBeenCalled();
  });

  it('loads React at once when there is no served list to paint into (the dev server): nothing to wait for', async () => {
    await start('empty');
    // Neither the copy nor the read has answered.
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledTimes(1));
    expect(paintEntries).not.toHaveBeenCalled();
  });

  it('loads React at once when the configuration will fail the read: nothing to wait for', async () => {
    env.configError = new Error('REQUEST_TIMEOUT_MS must be a positive whole number of milliseconds');
    await start('prerendered logbook');
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledTimes(1));
    expect(paintEntries).not.toHaveBeenCalled();
  });
});

describe('the entry point when React cannot be loaded', () => {
  it('with the logbook open, shows its title and a message in #root, logs the error, and tries again', async () => {
    env.logbookOpen = true;
    const failure = fetchFailure('render-app');
    failures.renderApp = failure;
    const root = await start('empty');

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
