import { describe, expect, it, vi } from 'vitest';
import type { Mfa } from '../types';
import { CodeFormatError, CodeVerifier } from './owner-steps';

const ok = <T>(data: T) => Promise.resolve({ data, error: null });
const failed = (code: string) => Promise.resolve({ data: null, error: Object.assign(new Error(code), { code }) });

/** An MFA client whose challenges expire at `expiresAt` (Unix seconds) and whose verify answers as told. */
function fakeMfa(verifyAnswers: (() => Promise<unknown>)[], expiresAt = 1_000) {
  let made = 0;
  const challenge = vi.fn(() => ok({ id: `challenge-${++made}`, type: 'totp', expires_at: expiresAt }));
  const verify = vi.fn((_params: { factorId: string; challengeId: string; code: string }) => (verifyAnswers.shift() ?? (() => ok({})))());
  return { mfa: { challenge, verify } as unknown as Mfa, challenge, verify };
}

describe('verifying a code', () => {
  it('sends nothing for an empty or malformed code', async () => {
    const { mfa, challenge } = fakeMfa([]);
    const verifier = new CodeVerifier(mfa, () => 0);
    await expect(verifier.verify('f', ' ')).rejects.toThrow(CodeFormatError);
    await expect(verifier.verify('f', '12ab56')).rejects.toThrow('A code is 6 digits');
    expect(challenge).not.toHaveBeenCalled();
  });

  it('uses the challenge made ahead while it lasts, and a new one once it expired, without the owner noticing', async () => {
    let now = 0;
    const { mfa, verify } = fakeMfa([], 10);
    const verifier = new CodeVerifier(mfa, () => now);
    await verifier.prepare('f');
    await verifier.verify('f', '123 456');
    expect(verify).toHaveBeenLastCalledWith({ factorId: 'f', challengeId: 'challenge-1', code: '123456' });
    await verifier.prepare('f');
    now = 11_000;
    await verifier.verify('f', '123456');
    expect(verify).toHaveBeenLastCalledWith({ factorId: 'f', challengeId: 'challenge-3', code: '123456' });
  });

  it('sends the same code on a new challenge when the server says the challenge expired', async () => {
    const { mfa, verify } = fakeMfa([() => failed('mfa_challenge_expired')]);
    await new CodeVerifier(mfa, () => 0).verify('f', '123456');
    expect(verify.mock.calls.map(([params]) => params.challengeId)).toEqual(['challenge-1', 'challenge-2']);
  });

  it('rejects with the server error for a wrong code, and never reuses that challenge', async () => {
    const { mfa, challenge } = fakeMfa([() => failed('mfa_verification_failed')]);
    const verifier = new CodeVerifier(mfa, () => 0);
    await expect(verifier.verify('f', '000000')).rejects.toMatchObject({ code: 'mfa_verification_failed' });
    await verifier.verify('f', '111111');
    expect(challenge).toHaveBeenCalledTimes(2);
  });
});
