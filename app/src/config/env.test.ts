import { describe, expect, it } from 'vitest';
import { readEnv } from './env';

describe('readEnv', () => {
  it('opens the logbook only for the exact string "true"', () => {
    expect(readEnv({ VITE_LOGBOOK_OPEN: 'true' }).logbookOpen).toBe(true);
    for (const value of [undefined, '', 'TRUE', 'True', ' true', 'true ', '1', 'yes', 'false', true]) {
      expect(readEnv({ VITE_LOGBOOK_OPEN: value }).logbookOpen, String(value)).toBe(false);
    }
  });

  it('passes the URL and anon key through unchanged', () => {
    expect(
      readEnv({ VITE_SUPABASE_URL: ' http://127.0.0.1:54321/ ', VITE_SUPABASE_ANON_KEY: 'k.e.y' }),
    ).toEqual({ logbookOpen: false, supabaseUrl: ' http://127.0.0.1:54321/ ', supabaseAnonKey: 'k.e.y' });
  });

  it('turns a missing URL or key into an empty string, for the client to report', () => {
    expect(readEnv({})).toEqual({ logbookOpen: false, supabaseUrl: '', supabaseAnonKey: '' });
  });
});
