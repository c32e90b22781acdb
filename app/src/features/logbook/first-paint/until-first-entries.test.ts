import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deferred } from '@/testing/deferred';
import { FIRST_ENTRIES_DEADLINE_MS, untilFirstEntries } from './until-first-entries';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Whether `promise` has settled, after the microtasks already queued have run (the clock not moved). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

function sources() {
  const kept = deferred<boolean>();
  const read = deferred<boolean>();
  return { kept, read, until: untilFirstEntries({ kept: kept.promise, read: read.promise }) };
}

describe('untilFirstEntries', () => {
  it('waits while the copy is being read and the read has painted nothing', async () => {
    const { until } = sources();
    expect(await settled(until)).toBe(false);
    await vi.advanceTimersByTimeAsync(FIRST_ENTRIES_DEADLINE_MS - 1);
    expect(await settled(until)).toBe(false);
  });

  it('settles once the kept entries are painted (a repeat visit), without waiting for the read', async () => {
    const { kept, until } = sources();
    kept.resolve(true);
    expect(await settled(until)).toBe(true);
  });

  it('keeps waiting for the read when there was no copy to paint (a first visit)', async () => {
    const { kept, read, until } = sources();
    kept.resolve(false);
    expect(await settled(until)).toBe(false);
    read.resolve(true);
    expect(await settled(until)).toBe(true);
  });

  it('settles when the read settles without painting (an empty logbook, a catch-up read) or fails', async () => {
    const empty = sources();
    empty.kept.resolve(false);
    empty.read.resolve(false);
    expect(await settled(empty.until)).toBe(true);

    const failed = sources();
    failed.read.reject(new Error('offline'));
    expect(await settled(failed.until)).toBe(true);
  });

  it('settles at the deadline when the read never answers, and a copy that failed to paint waits like none', async () => {
    const { kept, until } = sources();
    kept.reject(new Error('unreadable'));
    expect(await settled(until)).toBe(false);
    await vi.advanceTimersByTimeAsync(FIRST_ENTRIES_DEADLINE_MS);
    expect(await settled(until)).toBe(true);
  });

  it('leaves no deadline timer behind once it has settled', async () => {
    const { kept, until } = sources();
    kept.resolve(true);
    await until;
    expect(vi.getTimerCount()).toBe(0);
  });
});
