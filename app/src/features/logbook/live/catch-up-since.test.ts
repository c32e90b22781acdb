import { describe, expect, it } from 'vitest';
import { plainRows } from '../device-copy/plain-rows';
import { catchUpSince, newestShown } from './catch-up-since';

const old = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'a' };
const newer = { id: 2, created_at: '2024-05-01T12:30:00.5+02:00', name: 'Bo', message: 'b' };

describe('catchUpSince', () => {
  it('starts a minute before the newest entry shown, in the list or among the arrivals', () => {
    expect(catchUpSince([], plainRows([old]))).toBe('2024-05-01T09:59:00.000Z');
    expect(catchUpSince([newer], plainRows([old]))).toBe('2024-05-01T10:29:00.500Z');
    expect(catchUpSince([old], plainRows([newer]))).toBe('2024-05-01T10:29:00.500Z');
    expect(catchUpSince([newer], plainRows([]))).toBe('2024-05-01T10:29:00.500Z');
  });

  it('reads every entry when none is shown or the newest one\'s time cannot be read', () => {
    expect(catchUpSince([], plainRows([]))).toBeUndefined();
    expect(catchUpSince([], plainRows([{ ...old, created_at: 'yesterday' }]))).toBeUndefined();
  });

  it('names the newest shown', () => {
    expect(newestShown([], plainRows([]))).toBeUndefined();
    expect(newestShown([newer], plainRows([old]))).toBe(newer.created_at);
  });
});
