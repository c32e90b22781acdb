import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred } from '@/testing/deferred';
import type { EntryRows } from '../types';
import { EARLY_PAINT_PROPERTY, leaveEarlyPaint, type EarlyPaint } from './early-paint-handle';

// Each factory runs only if its module is imported, so this records whether the visit's read was loaded.
const loaded = vi.hoisted(() => ({ prefetch: 0 }));
const env = vi.hoisted(() => ({ logbookOpen: true, supabaseUrl: '', supabaseKey: '', configError: null as Error | null }));
/** The visit's read the prefetch started, as paintFirstPage is handed it. */
const VISIT = vi.hoisted(() => ({ visit: 'prefetched' }));
const prefetchLogEntries = vi.hoisted(() => vi.fn(() => VISIT));
const paintEntries = vi.hoisted(() => vi.fn((_root: HTMLElement, _rows: unknown) => true));
/** The first page's paint the start-up asked for: the paint it passed, and how the test settles it. */
const firstPage = vi.hoisted(() => ({
  paint: (_rows: EntryRows): boolean => false,
  settle: (_painted: boolean): void => undefined,
}));
const paintFirstPage = vi.hoisted(() => vi.fn());
/** What the early read of the device's copy finds, when the test says. */
const copyRead = vi.hoisted(() => ({ resolve: (_found: unknown): void => undefined }));
const readCopyEarly = vi.hoisted(() => vi.fn());

vi.mock('@/config/env', () => ({ env }));
vi.mock('../device-copy/early-read', () => ({ readCopyEarly }));
vi.mock('./paint-entries', async (importOriginal) => ({ ...(await importOriginal<object>()), paintEntries }));
vi.mock('./first-page', () => ({ paintFirstPage }));

/** Set by a test: the next import of the visit's read fails (a chunk that could not be fetched). */
const failures: { prefetchEntries: Error | null } = { prefetchEntries: null };

const kept = { entries: [{ id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'Hi' }], updatedAt: 1, reconciledAt: 1 };
const rowsOf = (text: string) => ({ length: 1, name: () => text }) as unknown as EntryRows;

beforeEach(() => {
  vi.resetModules();
  // Registered afresh for each test: a factory's module is kept until then, and one that throws runs again.
  vi.doMock('../reads/prefetch-entries', () => {
    if (failures.prefetchEntries) throw failures.prefetchEntries;
    loaded.prefetch += 1;
    return { prefetchLogEntries };
  });
  loaded.prefetch = 0;
  failures.prefetchEntries = null;
  prefetchLogEntries.mockReset().mockReturnValue(VISIT);
  paintFirstPage.mockReset().mockImplementation((_visit: unknown, paint: (rows: EntryRows) => boolean) => {
    firstPage.paint = paint;
    return new Promise<boolean>((resolve) => (firstPage.settle = resolve));
  });
  Object.assign(env, { logbookOpen: true, supabaseUrl: 'https://project.example', supabaseKey: 'sb_publishable_key', configError: null });
  readCopyEarly.mockReset().mockImplementation(() => new Promise((resolve) => (copyRead.resolve = resolve)));
  paintEntries.mockReset().mockReturnValue(true);
});
afterEach(() => {
  delete (window as unknown as Record<string, unknown>)[EARLY_PAINT_PROPERTY];
  vi.restoreAllMocks();
  document.body.replaceChildren();
});

type Served = 'prerendered logbook' | 'painted by the inline script' | 'empty';

/**
 * The served page's #root: with the prerendered logbook's empty list to paint into, with that list painted into by
 * the inline script, or empty (the dev server).
 */
function servedRoot(root: Served): HTMLElement {
  const mount = document.createElement('div');
  mount.id = 'root';
  if (root !== 'empty') {
    // The served list the first entries are painted into (app/build/prerender-logbook.ts).
    const section = document.createElement('section');
    section.className = 'logbook-entries';
    const list = Object.assign(document.createElement('ul'), { className: 'entry-list' });
    if (root === 'painted by the inline script') list.append(Object.assign(document.createElement('li'), { textContent: 'Ann' }));
    section.append(list);
    mount.append(section);
  }
  document.body.append(mount);
  return mount;
}

/** Starts the logbook as the page's entry script does (src/app/main.tsx); `reactLoaded` turns true once the page would load React. */
async function start(root: Served = 'prerendered logbook') {
  const mount = servedRoot(root);
  const { startLogbook } = await import('./start-up');
  const startUp = startLogbook(mount);
  const state = { root: mount, startUp, reactLoaded: false };
  void startUp.firstEntries.then(() => (state.reactLoaded = true));
  return state;
}

/** Lets the start-up's pending promises and timers run for a moment. */
const aMoment = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('the start-up where the inline script did not run', () => {
  it('reads the device\'s copy and paints the entries kept there into the served HTML', async () => {
    const { root } = await start('empty');
    expect(readCopyEarly).toHaveBeenCalledTimes(1);
    copyRead.resolve(kept);
    await vi.waitFor(() => expect(paintEntries).toHaveBeenCalledTimes(1));
    const [paintedRoot, rows] = paintEntries.mock.calls[0] ?? [];
    expect(paintedRoot).toBe(root);
    expect(rows).toMatchObject({ length: 1 });
    expect((rows as EntryRows).name(0)).toBe('Ann');
    expect(performance.getEntriesByName('geocache:kept-entries-painted')).not.toHaveLength(0);
  });

  it('leaves the page to React once it renders: a copy read after that is not painted here', async () => {
    const { startUp } = await start('empty');
    await startUp.beforeReact();
    copyRead.resolve(kept);
    await aMoment();
    expect(paintEntries).not.toHaveBeenCalled();
  });

  it('starts the visit\'s read at once, and the page loads React at once without a served list to paint into', async () => {
    const state = await start('empty');
    await vi.waitFor(() => expect(prefetchLogEntries).toHaveBeenCalledTimes(1));
    // Neither the copy nor the read has answered.
    await vi.waitFor(() => expect(state.reactLoaded).toBe(true));
    expect(paintEntries).not.toHaveBeenCalled();
  });

  it('leaves a read whose chunk failed to load to the logbook (no unhandled rejection), and React loads at once', async () => {
    failures.prefetchEntries = new TypeError('Failed to fetch dynamically imported module: /assets/prefetch-entries.js');
    const state = await start();
    copyRead.resolve(null);
    await vi.waitFor(() => expect(state.reactLoaded).toBe(true));
    expect(prefetchLogEntries).not.toHaveBeenCalled();
    expect(paintFirstPage).not.toHaveBeenCalled();
  });

  it('loads React at once when the configuration will fail the read: nothing to wait for', async () => {
    env.configError = new Error('REQUEST_TIMEOUT_MS must be a positive whole number of milliseconds');
    const state = await start();
    await vi.waitFor(() => expect(state.reactLoaded).toBe(true));
    expect(paintEntries).not.toHaveBeenCalled();
  });
});

describe('the start-up with a backend configured: React waits for the first entries', () => {
  it('on a first visit, waits until the read has painted its first page into the served HTML', async () => {
    const state = await start();
    copyRead.resolve(null);
    await vi.waitFor(() => expect(paintFirstPage).toHaveBeenCalledTimes(1));
    expect(paintFirstPage.mock.calls[0]?.[0]).toBe(VISIT);
    await aMoment();
    expect(state.reactLoaded).toBe(false);

    // The read's first page arrives: painted into the served HTML, then React loads.
    const rows = rowsOf('Bo');
    expect(firstPage.paint(rows)).toBe(true);
    expect(paintEntries).toHaveBeenCalledExactlyOnceWith(state.root, rows);
    expect(performance.getEntriesByName('geocache:first-page-painted')).not.toHaveLength(0);
    firstPage.settle(true);
    await vi.waitFor(() => expect(state.reactLoaded).toBe(true));
  });

  it('on a repeat visit, lets React load as soon as the kept entries are painted, without waiting for the read', async () => {
    const state = await start();
    copyRead.resolve(kept);
    await vi.waitFor(() => expect(state.reactLoaded).toBe(true));
    expect(paintEntries).toHaveBeenCalledTimes(1);
    // React renders: the read's page is not painted over the kept entries, whatever it holds.
    await state.startUp.beforeReact();
    paintEntries.mockClear();
    expect(firstPage.paint(rowsOf('Bo'))).toBe(false);
    expect(paintEntries).not.toHaveBeenCalled();
  });

  it('on a repeat visit, lets React load and render only once the frame showing the kept entries is drawn', async () => {
    let drawFrame: FrameRequestCallback = () => undefined;
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => ((drawFrame = callback), 1));
    const state = await start();
    copyRead.resolve(kept);
    await vi.waitFor(() => expect(paintEntries).toHaveBeenCalledTimes(1));
    await aMoment();
    expect(state.reactLoaded).toBe(false);
    drawFrame(performance.now());
    await vi.waitFor(() => expect(state.reactLoaded).toBe(true));
  });

  it('lets React load once the read settles without painting (an error, an empty logbook), to report it', async () => {
    const state = await start();
    copyRead.resolve(null);
    await vi.waitFor(() => expect(paintFirstPage).toHaveBeenCalledTimes(1));
    await aMoment();
    expect(state.reactLoaded).toBe(false);
    firstPage.settle(false);
    await vi.waitFor(() => expect(state.reactLoaded).toBe(true));
  });

  it('leaves entries it cannot paint to React, which renders them and reports what failed', async () => {
    paintEntries.mockImplementation(() => {
      throw new RangeError('Invalid time value');
    });
    const state = await start();
    copyRead.resolve(kept);
    await vi.waitFor(() => expect(paintFirstPage).toHaveBeenCalledTimes(1));
    expect(paintEntries).toHaveBeenCalledTimes(1);
    expect(firstPage.paint(rowsOf('Bo'))).toBe(false);
    firstPage.settle(false);
    await vi.waitFor(() => expect(state.reactLoaded).toBe(true));
  });
});

describe('the start-up after the inline script', () => {
  function inlineScript() {
    const work = deferred<EarlyPaint>();
    leaveEarlyPaint(window, work.promise);
    return work;
  }

  it('takes up its read of the copy, and starts the visit\'s read and lets React load once the frame showing its entries is drawn', async () => {
    let drawFrame: FrameRequestCallback = () => undefined;
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => ((drawFrame = callback), 1));
    const work = inlineScript();
    const state = await start('painted by the inline script');
    expect(readCopyEarly).toHaveBeenCalledTimes(1);
    work.resolve({ kept: { ...kept, count: 1 }, painted: true });
    await aMoment();
    expect(loaded.prefetch).toBe(0);
    expect(state.reactLoaded).toBe(false);
    drawFrame(performance.now());
    await vi.waitFor(() => expect(state.reactLoaded).toBe(true));
    await vi.waitFor(() => expect(prefetchLogEntries).toHaveBeenCalledTimes(1));
    // Nothing is painted here: the inline script did.
    expect(paintEntries).not.toHaveBeenCalled();
  });

  it('with nothing painted by it (a first visit), starts the read at once and lets React load once its first page is painted', async () => {
    const work = inlineScript();
    const state = await start();
    work.resolve({ kept: null, painted: false });
    await vi.waitFor(() => expect(paintFirstPage).toHaveBeenCalledTimes(1));
    await aMoment();
    expect(state.reactLoaded).toBe(false);
    expect(firstPage.paint(rowsOf('Bo'))).toBe(true);
    expect(paintEntries).toHaveBeenCalledTimes(1);
    firstPage.settle(true);
    await vi.waitFor(() => expect(state.reactLoaded).toBe(true));
  });
});
