import { Buffer } from 'node:buffer';

/**
 * Why `key`, found in `variable`, must never be built into the page, or null when it may: a secret key
 * (`sb_secret_...`) or a legacy service-role JWT (payload `role` = `service_role`) gives whoever holds it full
 * rights, past row-level security, and every visitor gets the page's key. The key itself is never repeated.
 * A JWT's signature is not checked: whatever the project would make of it, a service-role claim is never meant
 * for a browser.
 */
export function secretKeyProblem(variable: string, key: string): string | null {
  const kind = key.startsWith('sb_secret_') ? 'a secret key (sb_secret_...)' : isServiceRoleJwt(key) ? 'a service_role key' : null;
  if (kind === null) return null;
  return (
    `${variable} holds ${kind}: it would give every visitor of the page full rights to the project, past ` +
    'row-level security. Use the publishable key (sb_publishable_..., Project Settings → API Keys) or the legacy ' +
    'anon key.'
  );
}

function isServiceRoleJwt(key: string): boolean {
  const parts = key.split('.');
  if (parts.length !== 3) return false;
  const [, payload = ''] = parts;
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(payload)) return false;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null && (claims as { role?: unknown }).role === 'service_role';
  } catch {
    // Not a JWT: the client decides what to make of it.
    return false;
  }
}
