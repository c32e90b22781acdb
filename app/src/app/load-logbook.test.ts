import { beforeEach, describe, expect, it, vi } from 'vitest';

const Logbook = vi.hoisted(() => () => null);
const imports = vi.hoisted(() => ({ count: 0 }));

/** The logbook's module, as the next import finds it: failing (its chunk or the wasm did not load) or there. */
function mockLogbookModule(failure?: Error) {
  vi.doMock('@/features/logbook/components/logbook', () => {
    imports.count += 1;
    if (failure) throw failure;
    return { Logbook };
  });
}

beforeEach(() => {
  vi.resetModules();
  imports.count = 0;
});

async function freshLoader() {
  return await import('./load-logbook');
}

describe('loadLogbook', () => {
  it('imports the logbook once and then has it at hand', async () => {
    mockLogbookModule();
    const { loadLogbook, loadedLogbook } = await freshLoader();
    expect(loadedLogbook()).toBeUndefined();

    const first = loadLogbook();
    expect(loadLogbook()).toBe(first);
    await expect(first).resolves.toBe(Logbook);
    await expect(loadLogbook()).resolves.toBe(Logbook);
    expect(loadedLogbook()).toBe(Logbook);
    expect(imports.count).toBe(1);
  });

  it('shares a load in flight, and forgets it once it has failed, so the next call imports again', async () => {
    const failure = new TypeError('Failed to fetch dynamically imported module');
    mockLogbookModule(failure);
    const { loadLogbook, loadedLogbook } = await freshLoader();

    const first = loadLogbook();
    expect(loadLogbook()).toBe(first);
    // Vitest wraps what a module factory throws; a browser rejects with the import's own error.
    await expect(first).rejects.toMatchObject({ cause: failure });
    expect(loadedLogbook()).toBeUndefined();

    mockLogbookModule();
    await expect(loadLogbook()).resolves.toBe(Logbook);
    expect(loadedLogbook()).toBe(Logbook);
    expect(imports.count).toBe(2);
  });
});
