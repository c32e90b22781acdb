// @ts-check
// Shared set-up for the conformance tests: a fresh in-memory emulator per test, driven by the official
// @supabase/supabase-js exactly as an application would (anon client) and as an admin would (service role).
import { createHmac } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import { startEmulator } from '../../scripts/lib/emulator.mjs';

export const TABLE = 'geocache_logs';

/** PostgREST's timestamptz form on a UTC database: `T`, 0-6 fraction digits without trailing zeros, `+00:00`. */
export const POSTGREST_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{0,5}[1-9])?\+00:00$/;

/**
 * @typedef {object} Backend
 * @property {import('../../scripts/lib/emulator.mjs').RunningEmulator} emulator
 * @property {import('@supabase/supabase-js').SupabaseClient} anon          the page's client: createClient(url, anonKey)
 * @property {import('@supabase/supabase-js').SupabaseClient} service       a service-role client
 * @property {import('@supabase/supabase-js').SupabaseClient} publishable   createClient(url, publishableKey): anon
 * @property {import('@supabase/supabase-js').SupabaseClient} secret        createClient(url, secretKey): service_role
 */

const SERVER_SIDE = { auth: { persistSession: false, autoRefreshToken: false } };

/**
 * Starts an emulator for one test and stops it when the test ends.
 * @param {import('node:test').TestContext} t
 * @param {import('../../scripts/lib/emulator.mjs').EmulatorOptions} [options]  e.g. extraArgs: ['--max-rows', '5']
 * @returns {Promise<Backend>}
 */
export async function startBackend(t, options = {}) {
  const emulator = await startEmulator({ port: 0, db: ':memory:', ...options });
  t.after(() => emulator.stop());
  return {
    emulator,
    anon: createClient(emulator.url, emulator.anonKey),
    service: createClient(emulator.url, emulator.serviceRoleKey, SERVER_SIDE),
    publishable: createClient(emulator.url, emulator.publishableKey, SERVER_SIDE),
    secret: createClient(emulator.url, emulator.secretKey, SERVER_SIDE),
  };
}

/**
 * @typedef {{ id: number, created_at: string, name: string, message: string }} Row
 */

/**
 * Signs the logbook once per entry, in order, a few milliseconds apart so every row gets its own created_at.
 * @param {import('@supabase/supabase-js').SupabaseClient} client
 * @param {{ name: string, message: string }[]} entries
 * @returns {Promise<Row[]>} the inserted rows as the server returned them, in insertion order
 */
export async function signInOrder(client, entries) {
  /** @type {Row[]} */
  const rows = [];
  for (const entry of entries) {
    const { data, error } = await client.from(TABLE).insert(entry).select();
    if (error !== null) throw new Error(`insert failed: ${JSON.stringify(error)}`);
    const [row] = /** @type {Row[]} */ (data);
    if (row === undefined) throw new Error('insert(...).select() returned no row');
    rows.push(row);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  return rows;
}

/** @param {number} count */
export function sampleEntries(count) {
  return Array.from({ length: count }, (_, index) => ({ name: `visitor ${index + 1}`, message: `found it (${index + 1})` }));
}

/**
 * A raw request to the emulator's REST API with the anon key (as supabase-js sends it) unless headers say otherwise.
 * @param {import('../../scripts/lib/emulator.mjs').RunningEmulator} emulator
 * @param {string} pathAndQuery  e.g. `/rest/v1/geocache_logs?select=*`
 * @param {RequestInit & { headers?: Record<string, string> }} [init]
 */
export function rest(emulator, pathAndQuery, init = {}) {
  return fetch(`${emulator.url}${pathAndQuery}`, {
    ...init,
    headers: { apikey: emulator.anonKey, authorization: `Bearer ${emulator.anonKey}`, ...init.headers },
  });
}

/**
 * A JWT in compact form; HS256-signed with `secret`, or unsigned when `alg` is "none".
 * @param {Record<string, unknown>} payload
 * @param {{ secret?: string, alg?: 'HS256' | 'none' }} [options]
 */
export function jwt(payload, { secret = 'another-secret-that-is-at-least-32-characters', alg = 'HS256' } = {}) {
  const encode = (/** @type {unknown} */ value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg, typ: 'JWT' })}.${encode(payload)}`;
  if (alg === 'none') return `${unsigned}.`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

/**
 * The claims of a JWT (no verification: used to read the emulator's own keys).
 * @param {string} token
 * @returns {Record<string, unknown>}
 */
export function claims(token) {
  const payload = token.split('.')[1] ?? '';
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
}
