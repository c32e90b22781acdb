import { describe, expect, it } from 'vitest';
import { errorWords, isRefusal, isSessionLost } from './error-words';

const coded = (fields: { code?: string; status?: number; retryable?: boolean; message?: string }) => Object.assign(new Error(fields.message ?? 'x'), fields);

describe("the owner page's words for an error", () => {
  it('names wrong credentials, wrong and late codes, rate limits and network failures', () => {
    expect(errorWords(coded({ code: 'invalid_credentials', status: 400 }), 'Signing in')).toBe('Wrong e-mail or password.');
    expect(errorWords(coded({ code: 'mfa_verification_failed' }), 'Verifying')).toMatch(/^That code is not right/);
    expect(errorWords(coded({ code: 'mfa_challenge_expired' }), 'Verifying')).toMatch(/^That code came too late/);
    expect(errorWords(coded({ code: 'over_request_rate_limit', status: 429 }), 'Signing in')).toBe('Signing in failed: too many attempts. Wait a minute, then try again.');
    expect(errorWords(coded({ status: 0, retryable: true }), 'Signing in')).toMatch(/could not be reached/);
    expect(errorWords(coded({ message: 'Database error' }), 'Removing the entry')).toBe('Removing the entry failed (Database error).');
    expect(errorWords('not an error', 'Signing in')).toBe('Signing in failed.');
  });

  it("tells a refusal (not an owner at AAL2) from a session that is gone", () => {
    expect(isRefusal(coded({ code: '42501', status: 403 }))).toBe(true);
    expect(isSessionLost(coded({ code: 'PGRST303', status: 401 }))).toBe(true);
    expect(isSessionLost(coded({ code: '42501', status: 403 }))).toBe(false);
  });
});
