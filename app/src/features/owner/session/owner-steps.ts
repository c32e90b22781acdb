import type { Auth, Mfa } from '../types';

/** Where the owner stands: the page shows one step at a time, and the owner's tools only at `ready` (AAL2). */
export type OwnerStep =
  | { readonly kind: 'starting' }
  | { readonly kind: 'sign-in' }
  | { readonly kind: 'enrol'; readonly factorId: string; readonly qrCode: string; readonly secret: string }
  | { readonly kind: 'verify'; readonly factorId: string }
  | { readonly kind: 'ready' };

/** The name the page's TOTP factor is enrolled under. */
export const FACTOR_NAME = 'Geocache logbook';

/**
 * The step after a sign-in (or a reload with a stored session): the owner's tools at AAL2; else a code for the
 * verified TOTP factor; else a new TOTP enrolment (unverified ones left by an earlier visit are removed first, so
 * the QR code shown is the only one that counts). Rejects with the client's AuthError.
 */
export async function stepAfterSignIn(auth: Auth): Promise<OwnerStep> {
  const { data, error } = await auth.getSession();
  if (error !== null) throw error;
  if (data.session === null) return { kind: 'sign-in' };
  const level = await auth.mfa.getAuthenticatorAssuranceLevel();
  if (level.error !== null) throw level.error;
  if (level.data.currentLevel === 'aal2') return { kind: 'ready' };
  const factors = await auth.mfa.listFactors();
  if (factors.error !== null) throw factors.error;
  const verified = factors.data.totp.find((factor) => factor.status === 'verified');
  if (verified !== undefined) return { kind: 'verify', factorId: verified.id };
  for (const factor of factors.data.all) {
    if (factor.factor_type !== 'totp' || factor.status === 'verified') continue;
    const gone = await auth.mfa.unenroll({ factorId: factor.id });
    if (gone.error !== null) throw gone.error;
  }
  const enrolled = await auth.mfa.enroll({ factorType: 'totp', friendlyName: FACTOR_NAME });
  if (enrolled.error !== null) throw enrolled.error;
  if (enrolled.data.type !== 'totp') throw new Error('The server enrolled a factor that is not TOTP.');
  return { kind: 'enrol', factorId: enrolled.data.id, qrCode: enrolled.data.totp.qr_code, secret: enrolled.data.totp.secret };
}

/** A challenge and when it expires (Unix seconds). */
interface Challenge {
  readonly factorId: string;
  readonly id: string;
  readonly expiresAt: number;
}

/** Why a code was not sent. */
export class CodeFormatError extends Error {
  override readonly name = 'CodeFormatError';
}

/**
 * Verifies TOTP codes for one factor, challenging as needed: a challenge is reused while it lasts, and one that
 * expired (by its own time, or as the server says) is replaced and the same code sent again, so the owner never
 * sees a challenge expire. A challenge a code failed on is not reused.
 */
export class CodeVerifier {
  private readonly mfa: Mfa;
  private readonly now: () => number;
  private challenge: Challenge | null = null;

  constructor(mfa: Mfa, now: () => number = Date.now) {
    this.mfa = mfa;
    this.now = now;
  }

  /** Challenges ahead of the code, when the step is shown: one that expires while the owner types is renewed. */
  async prepare(factorId: string): Promise<void> {
    await this.current(factorId);
  }

  /** Resolves once the session is at AAL2; rejects with a CodeFormatError (nothing sent) or the client's AuthError. */
  async verify(factorId: string, typed: string): Promise<void> {
    const code = typed.replace(/\s+/g, '');
    if (code === '') throw new CodeFormatError('Enter the 6-digit code your authenticator app shows.');
    if (!/^\d{6}$/.test(code)) throw new CodeFormatError('A code is 6 digits: enter the one your authenticator app shows.');
    let challenge = await this.current(factorId);
    let result = await this.mfa.verify({ factorId, challengeId: challenge.id, code });
    if (result.error?.code === 'mfa_challenge_expired') {
      this.challenge = null;
      challenge = await this.current(factorId);
      result = await this.mfa.verify({ factorId, challengeId: challenge.id, code });
    }
    // Used: a verified challenge is spent, and a failed one is not tried again.
    this.challenge = null;
    if (result.error !== null) throw result.error;
  }

  private async current(factorId: string): Promise<Challenge> {
    const held = this.challenge;
    if (held !== null && held.factorId === factorId && held.expiresAt > this.now() / 1000) return held;
    const { data, error } = await this.mfa.challenge({ factorId });
    if (error !== null) throw error;
    this.challenge = { factorId, id: data.id, expiresAt: data.expires_at };
    return this.challenge;
  }
}
