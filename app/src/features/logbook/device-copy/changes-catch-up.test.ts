import { describe, expect, it, vi } from 'vitest';
import { catchUpChanges, CHANGES_PAGE, type ChangeSource } from './changes-catch-up';
import type { LogChange } from '../types';

const entry = (id: number) => ({ id, created_at: '2019-01-01T00:00:00+00:00', name: `n${id}`, message: 'm' });

/** A changes table served `page` rows at a time, and the entries that exist now. */
function source(changes: LogChange[], existing: number[], page = CHANGES_PAGE) {
  const asked: number[] = [];
  const listChanges = vi.fn((after: number, limit: number) => {
    asked.push(after);
    return Promise.resolve(changes.filter(({ seq }) => seq > after).slice(0, Math.min(limit, page)));
  });
  const from: ChangeSource = {
    listChanges,
    newestChange: () => Promise.resolve(changes.at(-1)?.seq ?? 0),
    entriesById: (ids) => Promise.resolve(existing.filter((id) => ids.includes(id)).map(entry)),
  };
  return { from, asked, listChanges };
}

describe('catching up on removals and restores', () => {
  it('starts a device that never read them at the newest change, learning nothing', async () => {
    const { from, listChanges } = source([{ seq: 4, entryId: 1, change: 'removed' }], []);
    expect(await catchUpChanges(from, { cursor: null, removed: [] })).toEqual({ removed: [], added: [], cursor: 4 });
    expect(listChanges).not.toHaveBeenCalled();
  });

  it('reads every page after the cursor, in order, and the entries added back by id', async () => {
    const changes: LogChange[] = [
      { seq: 3, entryId: 7, change: 'removed' },
      { seq: 4, entryId: 8, change: 'removed' },
      { seq: 5, entryId: 8, change: 'added' },
      { seq: 6, entryId: 9, change: 'added' },
      { seq: 7, entryId: 9, change: 'removed' },
    ];
    const { from, asked } = source(changes, [8], 2);
    const caught = await catchUpChanges(from, { cursor: 2, removed: [] });
    expect(caught).toEqual({ removed: [7, 9], added: [entry(8)], cursor: 7 });
    expect(asked).toEqual([2, 4, 6, 7]);
  });

  it('rejects with the read that failed, learning nothing', async () => {
    const { from, listChanges } = source([], []);
    listChanges.mockRejectedValueOnce(new Error('offline'));
    await expect(catchUpChanges(from, { cursor: 1, removed: [] })).rejects.toThrow('offline');
  });
});
