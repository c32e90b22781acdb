// @vitest-environment node
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { clientConfigError } from './client-config.ts';

const clientPackageDir = fileURLToPath(new URL('../../wasm/pkg', import.meta.url));

describe('clientConfigError (the built wasm client, run in Node)', () => {
  it.each([
    ['', 'anon-key', 'supabaseUrl is required.'],
    ['   ', 'anon-key', 'supabaseUrl is required.'],
    ['http://127.0.0.1:54321', '', 'supabaseKey is required.'],
    ['', '', 'supabaseUrl is required.'],
    ['ftp://example.com', 'anon-key', 'Invalid supabaseUrl: Must be a valid HTTP or HTTPS URL.'],
    ['https://', 'anon-key', 'Invalid supabaseUrl: Provided URL is malformed.'],
  ])('rejects url %j with key %j: %s', async (url, key, message) => {
    expect(await clientConfigError(clientPackageDir, url, key)).toBe(message);
  });

  it('accepts a complete configuration', async () => {
    expect(await clientConfigError(clientPackageDir, 'https://abc.supabase.co', 'anon-key')).toBeNull();
  });

  it('says how to build the client when it is missing', async () => {
    await expect(clientConfigError('/nonexistent/pkg', '', '')).rejects.toThrow(/build the wasm package first/);
  });
});
