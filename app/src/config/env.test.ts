import { describe, expect, it } from 'vitest';
import { readEnv } from './env';
import { MAX_REQUEST_TIMEOUT_MS } from './request-timeout';

describe('readEnv', () => {
  it('opens the logbook only for the exact string "true"', () => {
    expect(readEnv({ VITE_LOGBOOK_OPEN: 'true' }).logbookOpen).toBe(true);
    for (const value of [undefined, '', 'TRUE', 'True', ' true', 'true ', '1', 'yes', 'false', true]) {
      expect(readEnv({ VITE_LOGBOOK_OPEN: value }).logbookOpen, String(value)).toBe(false);
    }
  });

  it('passes the URL and the legacy anon key through unchanged', () => {
    expect(
      readEnv({ VITE_SUPABASE_URL: ' http://127.0.0.1:54321/ ', VITE_SUPABASE_ANON_KEY: 'k.e.y' }),
    ).toEqual({
      logbookOpen: false,
      supabaseUrl: ' http://127.0.0.1:54321/ ',
      supabaseKey: 'k.e.y',
      requestTimeoutMs: undefined,
      configError: null,
    });
  });

  it('turns a missing URL or key into an empty string, for the client to report', () => {
    expect(readEnv({})).toEqual({
      logbookOpen: false,
      supabaseUrl: '',
      supabaseKey: '',
      requestTimeoutMs: undefined,
      configError: null,
    });
  });
});

describe('readEnv: the publishable key and the legacy anon key', () => {
  it('reads the publishable key, and the anon key under its older name', () => {
    expect(readEnv({ VITE_SUPABASE_PUBLISHABLE_KEY: 'sb_publishable_abc' })).toMatchObject({ supabaseKey: 'sb_publishable_abc', configError: null });
    expect(readEnv({ VITE_SUPABASE_ANON_KEY: 'eyJ.x.y' })).toMatchObject({ supabaseKey: 'eyJ.x.y', configError: null });
    // Empty is unset: the other one counts.
    expect(readEnv({ VITE_SUPABASE_PUBLISHABLE_KEY: '', VITE_SUPABASE_ANON_KEY: 'eyJ.x.y' })).toMatchObject({ supabaseKey: 'eyJ.x.y', configError: null });
  });

  it('accepts both when they hold the same key', () => {
    expect(readEnv({ VITE_SUPABASE_PUBLISHABLE_KEY: 'sb_publishable_abc', VITE_SUPABASE_ANON_KEY: 'sb_publishable_abc' })).toMatchObject({
      supabaseKey: 'sb_publishable_abc',
      configError: null,
    });
  });

  it('reports two different keys as a ConfigError that names both variables, and passes no key on', () => {
    const env = readEnv({
      VITE_SUPABASE_PUBLISHABLE_KEY: 'sb_publishable_abc',
      VITE_SUPABASE_ANON_KEY: 'eyJ.x.y',
      VITE_REQUEST_TIMEOUT_MS: '30s',
      VITE_LOGBOOK_OPEN: 'true',
    });
    expect(env.supabaseKey).toBe('');
    expect(env.configError).toBeInstanceOf(Error);
    expect(env.configError).toMatchObject({ name: 'ConfigError', code: 'key_conflict' });
    expect(env.configError?.message).toBe(
      'VITE_SUPABASE_PUBLISHABLE_KEY and VITE_SUPABASE_ANON_KEY are both set, to different keys: set only one ' +
        '(VITE_SUPABASE_PUBLISHABLE_KEY is the current name).',
    );
    // Neither key is repeated in the message, which ends up in the console.
    expect(env.configError?.message).not.toMatch(/sb_publishable_abc|eyJ/);
    expect(env.logbookOpen).toBe(true);
  });
});

describe('readEnv: VITE_REQUEST_TIMEOUT_MS', () => {
  it('leaves the timeout to the client when it is unset or empty', () => {
    for (const value of [undefined, '']) {
      const env = readEnv({ VITE_REQUEST_TIMEOUT_MS: value });
      expect(env.requestTimeoutMs, String(value)).toBeUndefined();
      expect(env.configError, String(value)).toBeNull();
    }
  });

  it('reads a positive whole number of milliseconds, up to the longest delay browsers keep', () => {
    for (const [value, ms] of [
      ['1', 1],
      ['250', 250],
      ['30000', 30_000],
      [String(MAX_REQUEST_TIMEOUT_MS), 2_147_483_647],
    ] as const) {
      const env = readEnv({ VITE_REQUEST_TIMEOUT_MS: value });
      expect(env.requestTimeoutMs, value).toBe(ms);
      expect(env.configError, value).toBeNull();
    }
  });

  it('rejects anything else with a ConfigError that names the variable and the value, and sets no timeout', () => {
    const invalid: unknown[] = [
      '0',
      '-1',
      '+5',
      '1.5',
      '30000.0',
      '3e4',
      '0x10',
      '030000',
      ' 30000',
      '30000 ',
      '30s',
      '30_000',
      '30,000',
      'abc',
      'Infinity',
      'NaN',
      String(MAX_REQUEST_TIMEOUT_MS + 1),
      '99999999999999999999999',
      30000,
      true,
    ];
    for (const value of invalid) {
      const env = readEnv({ VITE_REQUEST_TIMEOUT_MS: value, VITE_LOGBOOK_OPEN: 'true' });
      expect(env.requestTimeoutMs, String(value)).toBeUndefined();
      expect(env.configError, String(value)).toBeInstanceOf(Error);
      expect(env.configError, String(value)).toMatchObject({ name: 'ConfigError', code: 'request_timeout_invalid' });
      expect(env.configError?.message, String(value)).toContain('VITE_REQUEST_TIMEOUT_MS must be a whole number of milliseconds');
      // The rest of the configuration is read as usual.
      expect(env.logbookOpen).toBe(true);
    }
  });

  it('quotes the offending value in the message', () => {
    expect(readEnv({ VITE_REQUEST_TIMEOUT_MS: '30s' }).configError?.message).toBe(
      'VITE_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647, e.g. 30000 (got "30s").',
    );
    expect(readEnv({ VITE_REQUEST_TIMEOUT_MS: ' 5' }).configError?.message).toContain('(got " 5")');
    expect(readEnv({ VITE_REQUEST_TIMEOUT_MS: 5 }).configError?.message).toContain('(got a number)');
  });
});
