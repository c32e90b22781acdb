import { describe, expect, it } from 'vitest';
import { liveEntry } from './live-entries';

describe('liveEntry', () => {
  it('reads the entry\'s four columns from an inserted row, ignoring others', () => {
    const row = { id: 7, created_at: '2024-05-01T10:00:00.123456+00:00', name: 'Ann', message: 'Hi', owner: null };
    expect(liveEntry(row)).toEqual({ id: 7, created_at: row.created_at, name: 'Ann', message: 'Hi' });
  });

  it.each([
    ['nothing', undefined],
    ['a string', 'row'],
    ['no id', { created_at: 'x', name: 'a', message: 'b' }],
    ['a text id', { id: '7', created_at: 'x', name: 'a', message: 'b' }],
    ['a fractional id', { id: 7.5, created_at: 'x', name: 'a', message: 'b' }],
    ['a null name', { id: 7, created_at: 'x', name: null, message: 'b' }],
    ['no message', { id: 7, created_at: 'x', name: 'a' }],
    ['a numeric created_at', { id: 7, created_at: 1, name: 'a', message: 'b' }],
  ])('is null for %s', (_, row) => {
    expect(liveEntry(row)).toBeNull();
  });
});
