// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { secretKeyProblem } from './secret-key.ts';

const jwt = (claims: unknown) =>
  ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'c2lnbmF0dXJl'].join('.');

describe('secretKeyProblem', () => {
  it('refuses a secret key, naming the variable and never the key', () => {
    const problem = secretKeyProblem('VITE_SUPABASE_PUBLISHABLE_KEY', 'sb_secret_AbCdEf123');
    expect(problem).toMatch(/^VITE_SUPABASE_PUBLISHABLE_KEY holds a secret key \(sb_secret_\.\.\.\): it would give every visitor/);
    expect(problem).not.toContain('AbCdEf123');
  });

  it('refuses a legacy JWT whose payload says role service_role, with or without base64 padding', () => {
    const key = jwt({ iss: 'supabase', ref: 'abc', role: 'service_role', iat: 1, exp: 2 });
    expect(secretKeyProblem('VITE_SUPABASE_ANON_KEY', key)).toMatch(/^VITE_SUPABASE_ANON_KEY holds a service_role key: /);
    const [header, payload, signature] = key.split('.');
    const padded = `${payload}${'='.repeat((4 - ((payload ?? '').length % 4)) % 4)}`;
    expect(secretKeyProblem('VITE_SUPABASE_ANON_KEY', `${header}.${padded}.${signature}`)).not.toBeNull();
  });

  it('accepts the publishable key, an anon JWT and anything that is not a JWT (the client judges those)', () => {
    for (const key of [
      'sb_publishable_AbCdEf123',
      jwt({ role: 'anon' }),
      jwt({ role: 'authenticated' }),
      jwt(['service_role']),
      'eyJ.not base64!.x',
      'a.b',
      'eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln',
      '',
      'sb_secretary',
    ]) {
      expect(secretKeyProblem('VITE_SUPABASE_ANON_KEY', key), key).toBeNull();
    }
  });
});
