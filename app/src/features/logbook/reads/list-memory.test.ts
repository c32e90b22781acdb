import { describe, expect, it } from 'vitest';
import { fakeEntryList, freeSpy } from '@/testing/fake-entry-list';
import { ListMemory } from './list-memory';

const ann = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'First!' };

describe('ListMemory', () => {
  it('keeps what is on screen and what is about to be, and frees a list once neither reads it', () => {
    const memory = new ListMemory();
    const first = fakeEntryList([ann]);
    const second = fakeEntryList([ann]);
    memory.show({ rows: first, lists: [first] });
    memory.committed({ rows: first, lists: [first] });
    const next = { rows: second, lists: [second] };
    memory.show(next);
    // Released while the screen still shows it: kept.
    memory.release(first);
    expect(freeSpy(first)).not.toHaveBeenCalled();
    memory.committed(next);
    expect(freeSpy(first)).toHaveBeenCalledTimes(1);
    expect(freeSpy(second)).not.toHaveBeenCalled();
  });

  it('frees a list shown but replaced before it was ever committed', () => {
    const memory = new ListMemory();
    const skipped = fakeEntryList([ann]);
    const latest = fakeEntryList([ann]);
    memory.show({ rows: skipped, lists: [skipped] });
    memory.show({ rows: latest, lists: [latest] });
    memory.committed(null);
    expect(freeSpy(skipped)).toHaveBeenCalledTimes(1);
    expect(freeSpy(latest)).not.toHaveBeenCalled();
  });

  it('frees a handle handed over twice once', () => {
    const memory = new ListMemory();
    const list = fakeEntryList([ann]);
    memory.release(list);
    memory.release(list);
    memory.committed(null);
    expect(freeSpy(list)).toHaveBeenCalledTimes(1);
  });
});
