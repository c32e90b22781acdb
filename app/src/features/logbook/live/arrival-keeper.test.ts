import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeviceCopy } from '../device-copy/copy-store';
import { ArrivalKeeper, KEEP_DELAY_MS } from './arrival-keeper';
import type { CopyTimes, KeptCopy, KeptEntry } from '../types';

const ann = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'a' };
const bo = { id: 2, created_at: '2024-05-02T10:00:00+00:00', name: 'Bo', message: 'b' };
const cy = { id: 3, created_at: '2024-05-03T10:00:00+00:00', name: 'Cy', message: 'c' };

/** A copy in memory that counts its writes. */
function memoryCopy(entries: KeptEntry[]): DeviceCopy & { writes: number; state: KeptCopy } {
  const copy = {
    writes: 0,
    state: { entries, updatedAt: 1, reconciledAt: 1 } as KeptCopy,
    read: () => Promise.resolve(copy.state),
    replace: (next: readonly KeptEntry[], times: CopyTimes) => {
      copy.writes += 1;
      copy.state = { entries: [...next], ...times };
      return Promise.resolve();
    },
  };
  return copy;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('ArrivalKeeper', () => {
  it('writes the arrivals of a few seconds in one write, opening the copy once', async () => {
    const copy = memoryCopy([ann]);
    const open = vi.fn(() => Promise.resolve(copy));
    const keeper = new ArrivalKeeper(open);
    keeper.add([bo], ann.created_at);
    keeper.add([cy], ann.created_at);
    await vi.advanceTimersByTimeAsync(KEEP_DELAY_MS - 1);
    expect(copy.writes).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await keeper.flush();
    expect(copy.writes).toBe(1);
    expect(copy.state.entries).toEqual([cy, bo, ann]);
    keeper.add([{ ...cy, id: 4 }], ann.created_at);
    await vi.advanceTimersByTimeAsync(KEEP_DELAY_MS);
    await keeper.flush();
    expect(copy.writes).toBe(2);
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('drops what is pending when disposed, and works again after (a second mount)', async () => {
    const copy = memoryCopy([ann]);
    const keeper = new ArrivalKeeper(() => Promise.resolve(copy));
    keeper.add([bo], ann.created_at);
    keeper.dispose();
    await vi.advanceTimersByTimeAsync(KEEP_DELAY_MS * 2);
    await keeper.flush();
    expect(copy.writes).toBe(0);
    keeper.add([cy], ann.created_at);
    await vi.advanceTimersByTimeAsync(KEEP_DELAY_MS);
    await keeper.flush();
    expect(copy.state.entries).toEqual([cy, ann]);
  });
});
