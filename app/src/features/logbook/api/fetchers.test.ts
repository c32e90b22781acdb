import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getClient } from './client';
import { startEntryPages } from './entry-pages';
import { fakeEntryList, freeSpy } from '@/testing/fake-entry-list';
import { fakeReads, readAt } from '@/testing/fake-paged-read';
import { signLogbook } from './sign-logbook';
import { loadClientCode } from './client-code';
import { takeConsoleErrors } from '@/testing/console';

vi.mock('./client', () => ({ getClient: vi.fn() }));

const KEY = '123e4567-e89b-42d3-a456-426614174000';
const configError = Object.assign(new Error('supabaseKey is required.'), { name: 'ConfigError', code: 'key_required' });

// The wasm client's code has loaded, as on a page whose form is usable (logbook.client-loading.test.tsx covers the time
// before).
beforeAll(async () => {
  await loadClientCode();
});

beforeEach(() => {
  vi.mocked(getClient).mockReset();
});

function clientReading() {
  const reads = fakeReads();
  vi.mocked(getClient).mockReturnValue({ listEntries: reads.listEntries } as unknown as ReturnType<typeof getClient>);
  return reads;
}

describe('startEntryPages', () => {
  it('resolves to what the client returned, after handing each page to the subscriber', async () => {
    const reads = clientReading();
    const pages = startEntryPages();
    const seen: number[] = [];
    pages.subscribe((soFar) => seen.push(soFar.length));
    readAt(reads, 0).page([{ id: 2, created_at: '2024-01-02T00:00:00+00:00', name: 'Bo', message: 'TFTC' }]);
    const all = fakeEntryList([]);
    await readAt(reads, 0).finish(all);
    await expect(pages.done).resolves.toBe(all);
    expect(seen).toEqual([1]);
  });

  it('keeps only the newest page until someone subscribes, freeing the ones it passed over', () => {
    const reads = clientReading();
    const pages = startEntryPages();
    const first = readAt(reads, 0).page([]);
    const second = readAt(reads, 0).page([]);
    expect(freeSpy(first)).toHaveBeenCalledTimes(1);
    const seen: unknown[] = [];
    pages.subscribe((soFar) => seen.push(soFar));
    expect(seen).toEqual([second]);
    expect(freeSpy(second)).not.toHaveBeenCalled();
    expect(() => pages.subscribe(() => undefined)).toThrow(/already have a subscriber/);
  });

  it('does not count a rejection as unhandled before anyone takes the read over', async () => {
    const reads = clientReading();
    const pages = startEntryPages();
    const error = new Error('page 1: offline');
    await readAt(reads, 0).fail(error);
    await expect(pages.done).rejects.toBe(error);
  });
});

describe('startEntryPages: the first page before anyone has subscribed', () => {
  const entry = { id: 1, created_at: '2024-01-01T00:00:00+00:00', name: 'Ann', message: 'Hi' };

  it('hands the first page, once, to the watcher before the subscriber, its rows readable then', () => {
    const reads = clientReading();
    const pages = startEntryPages();
    const order: string[] = [];
    pages.onFirstPage((firstPage) => order.push(`watcher ${firstPage.name(0)}`));
    pages.subscribe((soFar) => {
      order.push(`subscriber ${soFar.length}`);
      soFar.free();
    });
    readAt(reads, 0).page([entry]);
    readAt(reads, 0).page([entry, { ...entry, id: 2 }]);
    expect(order).toEqual(['watcher Ann', 'subscriber 1', 'subscriber 2']);
  });

  it('hands nothing to a watcher that came after the first page, and takes one watcher only', () => {
    const reads = clientReading();
    const pages = startEntryPages();
    readAt(reads, 0).page([entry]);
    const late = vi.fn();
    pages.onFirstPage(late);
    readAt(reads, 0).page([entry]);
    expect(late).not.toHaveBeenCalled();
    const other = startEntryPages();
    other.onFirstPage(() => undefined);
    expect(() => other.onFirstPage(() => undefined)).toThrow(/already have a first-page watcher/);
  });

  it('logs a watcher that throws, and the read goes on', async () => {
    const reads = clientReading();
    const pages = startEntryPages();
    const error = new Error('cannot paint');
    pages.onFirstPage(() => {
      throw error;
    });
    const seen: number[] = [];
    pages.subscribe((soFar) => seen.push(soFar.length));
    readAt(reads, 0).page([entry]);
    await readAt(reads, 0).finish();
    expect(seen).toEqual([1]);
    expect(takeConsoleErrors()).toEqual([['Error painting the first entries:', error]]);
  });
});

describe('fetchers', () => {
  it('signLogbook passes the entry through untouched', async () => {
    const sign = vi.fn(() => Promise.resolve(undefined));
    vi.mocked(getClient).mockReturnValue({ signLogbook: sign } as unknown as ReturnType<typeof getClient>);
    const entry = { name: ' Ann ', message: '\n hi \n' };
    await expect(signLogbook(entry)).resolves.toBeUndefined();
    expect(sign).toHaveBeenCalledExactlyOnceWith(entry);
  });

  it('signLogbook passes a given key through and leaves it out otherwise', async () => {
    const sign = vi.fn(() => Promise.resolve(undefined));
    vi.mocked(getClient).mockReturnValue({ signLogbook: sign } as unknown as ReturnType<typeof getClient>);
    const entry = { name: 'Ann', message: 'Hi' };
    await signLogbook(entry, { idempotencyKey: KEY });
    await signLogbook(entry);
    expect(sign.mock.calls).toEqual([[entry, { idempotencyKey: KEY }], [entry]]);
  });

  it('turn a client-creation failure into a rejection rather than a synchronous throw', async () => {
    vi.mocked(getClient).mockImplementation(() => {
      throw configError;
    });
    const listing = startEntryPages().done;
    const signing = signLogbook({ name: 'Ann', message: 'Hi' });
    await expect(listing).rejects.toBe(configError);
    await expect(signing).rejects.toBe(configError);
  });
});
