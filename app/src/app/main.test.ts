import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { takeConsoleErrors } from '@/testing/console';

// Each factory runs only if its module is imported, so these record what the entry point loaded.
const loaded = vi.hoisted(() => ({ renderApp: 0 }));
const loadLogbook = vi.hoisted(() => vi.fn(() => Promise.resolve(() => null)));
const env = vi.hoisted(() => ({ logbookOpen: false }));
const renderApp = vi.hoisted(() => vi.fn());
/** The logbook's start-up (first-paint/start-up.ts), its first entries and React's turn settled by the test. */
const startUp = vi.hoisted(() => ({
  firstEntries: { resolve: (): void => undefined },
  frameDrawn: { resolve: (): void => undefined },
}));
const startLogbook = vi.hoisted(() => vi.fn());
const beforeReact = vi.hoisted(() => vi.fn());

vi.mock('@/config/env', () => ({ env }));
vi.mock('./load-logbook', () => ({ loadLogbook }));
vi.mock('@/features/logbook/first-paint/start-up', () => ({ startLogbook }));

/** Set by a test: the next imports of React's module fail (a chunk that could not be fetched). */
const failures: { renderApp: Error | null } = { renderApp: null };

/**
 * The module main.tsx imports lazily. Registered afresh for each test (a factory's module is kept until then),
 * once (registrations are applied asynchronously); a factory that throws is run again on the next import.
 */
function mockLazyModules() {
  vi.doMock('./render-app', () => {
    if (failures.renderApp) throw failures.renderApp;
    loaded.renderApp += 1;
    return { renderApp };
  });
}

beforeEach(() => {
  vi.resetModules();
  mockLazyModules();
  Object.assign(loaded, { renderApp: 0 });
  Object.assign(failures, { renderApp: null });
  renderApp.mockReset();
  // By default the first entries need no waiting (no served list to paint into), nor does React.
  beforeReact.mockReset().mockResolvedValue(undefined);
  startLogbook.mockReset().mockImplementation(() => ({ firstEntries: Promise.resolve(), beforeReact }));
  loadLogbook.mockReset().mockResolvedValue(() => null);
});
afterEach(() => {
  vi.unstubAllEnvs();
  document.body.replaceChildren();
});

/** The start-up's first entries and React's turn, settled by the test. */
function heldStartUp() {
  startLogbook.mockImplementation(() => ({
    firstEntries: new Promise<void>((resolve) => (startUp.firstEntries.resolve = resolve)),
    beforeReact: () => new Promise<void>((resolve) => (startUp.frameDrawn.resolve = resolve)),
  }));
}

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
  // The build's own switch, which keeps the logbook's start-up out of the teaser's build.
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
    expect(loaded).toEqual({ renderApp: 0 });
    expect(loadLogbook).not.toHaveBeenCalled();
    expect(startLogbook).not.toHaveBeenCalled();
    expect(document.querySelector('main')).toHaveTextContent('text');
  });

  it('renders the teaser with React when it was not prerendered', async () => {
    env.logbookOpen = false;
    await start('empty');
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(document.getElementById('root')));
    expect(startLogbook).not.toHaveBeenCalled();
    expect(loadLogbook).not.toHaveBeenCalled();
  });

  it('with the logbook open, starts it in #root, loads its code while React loads, and renders the page', async () => {
    env.logbookOpen = true;
    const root = await start('empty');
    expect(startLogbook).toHaveBeenCalledExactlyOnceWith(root);
    expect(loadLogbook).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(root));
    expect(beforeReact).toHaveBeenCalledTimes(1);
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

  it('leaves a failed early load of the logbook to the page (no unhandled rejection, nothing logged here)', async () => {
    env.logbookOpen = true;
    loadLogbook.mockRejectedValue(fetchFailure('logbook'));
    await start('empty');
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledTimes(1));
    // An unhandled rejection would fail the run; an unclaimed console.error fails the test.
  });
});

/** Lets the page's pending promises and timers run for a moment. */
const aMoment = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('the entry point with the logbook open: React waits for the first entries', () => {
  beforeEach(() => {
    env.logbookOpen = true;
    heldStartUp();
  });

  it("loads neither React nor the logbook's code until the start-up has painted the first entries", async () => {
    const root = await start('empty');
    await aMoment();
    expect(loaded.renderApp).toBe(0);
    expect(loadLogbook).not.toHaveBeenCalled();
    startUp.firstEntries.resolve();
    await vi.waitFor(() => expect(loaded.renderApp).toBe(1));
    expect(loadLogbook).toHaveBeenCalledTimes(1);
    startUp.frameDrawn.resolve();
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledExactlyOnceWith(root));
  });

  it('renders only once the frame showing the entries painted before React is drawn', async () => {
    await start('empty');
    startUp.firstEntries.resolve();
    await vi.waitFor(() => expect(loaded.renderApp).toBe(1));
    await aMoment();
    expect(renderApp).not.toHaveBeenCalled();
    startUp.frameDrawn.resolve();
    await vi.waitFor(() => expect(renderApp).toHaveBeenCalledTimes(1));
    expect(performance.getEntriesByName('geocache:react-render')).not.toHaveLength(0);
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
