// @ts-check
// THE table of permission cases: role x operation x expected outcome, run unchanged against the emulator's REST
// API and against PostgreSQL under the migration (parity.test.mjs), and against a database without Supabase's
// default privileges (migration.test.mjs). Every case starts from one seeded row and ends by reading the table
// back as the same role.
import pg from 'pg';
import { attempt, TABLE } from './support.mjs';

/** A row as the cases compare it: `created_at` is a fixture's label, or "now" when the server assigned it. */
/** @typedef {{ name: string, message: string, created_at: string }} VisibleRow */

/** The row every case starts from (inserted by the service role with a fixed created_at). */
const SEEDED_AT = '2024-05-01T12:34:56+00:00';
/** The created_at a client tries to choose. */
const BACKDATED_AT = '2001-02-03T04:05:06+00:00';
const SEED = { name: 'Seed', message: 'first entry', created_at: SEEDED_AT };
/** Labels shown instead of the fixture timestamps, so the table reads as words. */
const TIMESTAMP_LABELS = new Map([
  [Date.parse(SEEDED_AT), 'seeded'],
  [Date.parse(BACKDATED_AT), 'backdated'],
]);

const NEW_ENTRY = { name: 'Ada', message: 'found it' };
const IDENTITY_VALUE = 4242;

const SEEDED = { name: SEED.name, message: SEED.message, created_at: 'seeded' };
const SIGNED = { ...NEW_ENTRY, created_at: 'now' };
const BACKDATED = { ...NEW_ENTRY, created_at: 'backdated' };
const EDITED = { ...SEEDED, message: 'edited' };

/**
 * @typedef {object} Operation
 * @property {{ method: string, query: string, body?: unknown }} rest  the request supabase-js would send
 * @property {{ sql: string, values: unknown[] }} sql                   the statement PostgREST would run
 */

export const OPERATIONS = /** @satisfies {Record<string, Operation>} */ ({
  select: {
    rest: { method: 'GET', query: '?select=name,message,created_at' },
    sql: { sql: `select name, message, created_at from ${TABLE}`, values: [] },
  },
  'insert (name, message)': {
    rest: { method: 'POST', query: '', body: NEW_ENTRY },
    sql: { sql: `insert into ${TABLE} (name, message) values ($1, $2)`, values: [NEW_ENTRY.name, NEW_ENTRY.message] },
  },
  'insert with id': {
    rest: { method: 'POST', query: '', body: { id: IDENTITY_VALUE, ...NEW_ENTRY } },
    sql: {
      sql: `insert into ${TABLE} (id, name, message) values ($1, $2, $3)`,
      values: [IDENTITY_VALUE, NEW_ENTRY.name, NEW_ENTRY.message],
    },
  },
  'insert with created_at': {
    rest: { method: 'POST', query: '', body: { created_at: BACKDATED_AT, ...NEW_ENTRY } },
    sql: {
      sql: `insert into ${TABLE} (created_at, name, message) values ($1, $2, $3)`,
      values: [BACKDATED_AT, NEW_ENTRY.name, NEW_ENTRY.message],
    },
  },
  update: {
    rest: { method: 'PATCH', query: `?name=eq.${SEED.name}`, body: { message: 'edited' } },
    sql: { sql: `update ${TABLE} set message = $1 where name = $2`, values: ['edited', SEED.name] },
  },
  'update id': {
    rest: { method: 'PATCH', query: `?name=eq.${SEED.name}`, body: { id: IDENTITY_VALUE } },
    sql: { sql: `update ${TABLE} set id = $1 where name = $2`, values: [IDENTITY_VALUE, SEED.name] },
  },
  delete: {
    rest: { method: 'DELETE', query: `?name=eq.${SEED.name}` },
    sql: { sql: `delete from ${TABLE} where name = $1`, values: [SEED.name] },
  },
});

/**
 * @typedef {object} PermissionCase
 * @property {import('./support.mjs').ApiRole} role
 * @property {keyof typeof OPERATIONS} operation
 * @property {number} status          the REST status
 * @property {string | null} code     PostgREST's error code = PostgreSQL's SQLSTATE; null when it succeeds
 * @property {VisibleRow[]} rows      the rows the role sees afterwards
 */

/** @type {[PermissionCase['role'], PermissionCase['operation'], number, string | null, VisibleRow[]][]} */
const TABLE_OF_CASES = [
  // role            operation                  status  code      rows afterwards
  ['anon',           'select',                  200,    null,     [SEEDED]],
  ['anon',           'insert (name, message)',  201,    null,     [SEEDED, SIGNED]],
  ['anon',           'insert with id',          400,    '428C9',  [SEEDED]],
  ['anon',           'insert with created_at',  401,    '42501',  [SEEDED]],
  ['anon',           'update',                  401,    '42501',  [SEEDED]],
  ['anon',           'update id',               400,    '428C9',  [SEEDED]],
  ['anon',           'delete',                  401,    '42501',  [SEEDED]],

  ['authenticated',  'select',                  200,    null,     [SEEDED]],
  ['authenticated',  'insert (name, message)',  201,    null,     [SEEDED, SIGNED]],
  ['authenticated',  'insert with id',          400,    '428C9',  [SEEDED]],
  ['authenticated',  'insert with created_at',  403,    '42501',  [SEEDED]],
  ['authenticated',  'update',                  403,    '42501',  [SEEDED]],
  ['authenticated',  'update id',               400,    '428C9',  [SEEDED]],
  // The delete privilege, but only an owner signed in with a second factor reaches a row (see moderation-cases.mjs):
  // this account is none, so nothing is removed.
  ['authenticated',  'delete',                  204,    null,     [SEEDED]],

  ['service_role',   'select',                  200,    null,     [SEEDED]],
  ['service_role',   'insert (name, message)',  201,    null,     [SEEDED, SIGNED]],
  ['service_role',   'insert with id',          400,    '428C9',  [SEEDED]],
  ['service_role',   'insert with created_at',  201,    null,     [SEEDED, BACKDATED]],
  ['service_role',   'update',                  204,    null,     [EDITED]],
  ['service_role',   'update id',               400,    '428C9',  [SEEDED]],
  ['service_role',   'delete',                  204,    null,     []],
];

/** @type {PermissionCase[]} */
export const PERMISSION_CASES = TABLE_OF_CASES.map(([role, operation, status, code, rows]) => ({ role, operation, status, code, rows }));

/** @param {PermissionCase} permissionCase */
export function caseTitle({ role, operation, status, code }) {
  return `${role} ${operation}: ${code === null ? `allowed (${status})` : `${code} (${status})`}`;
}

/**
 * What one backend did for one case.
 * @typedef {object} Outcome
 * @property {import('./support.mjs').SqlError | null} error   null when the operation succeeded
 * @property {VisibleRow[]} rows                               what the role read afterwards, sorted
 */

/**
 * Normalizes rows read back: fixture timestamps become their labels, a server-assigned one (within a minute
 * of now) becomes "now", anything else stays as it is (and so fails the comparison, naming the value).
 * @param {Record<string, unknown>[]} rows
 * @returns {VisibleRow[]}
 */
function visible(rows) {
  return rows
    .map((row) => {
      const raw = row.created_at;
      const instant = raw instanceof Date ? raw.getTime() : Date.parse(String(raw));
      const label = TIMESTAMP_LABELS.get(instant) ?? (Math.abs(Date.now() - instant) < 60_000 ? 'now' : String(raw));
      return { name: String(row.name), message: String(row.message), created_at: label };
    })
    .sort((a, b) => `${a.name}\u0000${a.created_at}`.localeCompare(`${b.name}\u0000${b.created_at}`));
}

/**
 * Sorts the expected rows the way `visible` sorts what was read.
 * @param {VisibleRow[]} rows
 */
export function sortedRows(rows) {
  return [...rows].sort((a, b) => `${a.name}\u0000${a.created_at}`.localeCompare(`${b.name}\u0000${b.created_at}`));
}

/**
 * Runs a case against PostgreSQL through PostgREST's login role, in a transaction that is rolled back.
 * @param {import('pg').Client} authenticator
 * @param {PermissionCase} permissionCase
 * @returns {Promise<Outcome>}
 */
export async function runSqlCase(authenticator, { role, operation }) {
  await authenticator.query('begin');
  try {
    await authenticator.query('set local role service_role');
    await authenticator.query(`delete from ${TABLE}`);
    await authenticator.query(`insert into ${TABLE} (name, message, created_at) values ($1, $2, $3)`, [SEED.name, SEED.message, SEED.created_at]);
    await authenticator.query(`set local role ${pg.escapeIdentifier(role)}`);
    const { sql, values } = OPERATIONS[operation].sql;
    const { error } = await attempt(authenticator, sql, values);
    const readBack = await authenticator.query(OPERATIONS.select.sql.sql);
    return { error, rows: visible(readBack.rows) };
  } finally {
    await authenticator.query('rollback');
  }
}

/**
 * The tokens a REST request carries per role: the page's anon key as `apikey`, and the role's JWT as bearer.
 * @typedef {Record<import('./support.mjs').ApiRole, { apikey: string, bearer: string }>} RoleKeys
 */

/**
 * One request to the emulator's table, as supabase-js sends it.
 * @param {string} url
 * @param {{ apikey: string, bearer: string }} keys
 * @param {{ method: string, query: string, body?: unknown }} request
 * @param {Record<string, string>} [extraHeaders]  e.g. the address header a proxy in front would add
 */
export function restRequest(url, keys, { method, query, body }, extraHeaders = {}) {
  /** @type {Record<string, string>} */
  const headers = { ...extraHeaders, apikey: keys.apikey, authorization: `Bearer ${keys.bearer}` };
  if (method === 'GET') headers['accept-profile'] = 'public';
  else headers['content-profile'] = 'public';
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${url}/rest/v1/geocache_logs${query}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * Runs a case against the emulator's REST API: reset to the seed (as the service role), the operation as the
 * case's role, then a read as that role.
 * @param {string} url
 * @param {RoleKeys} keys
 * @param {PermissionCase} permissionCase
 * @returns {Promise<Outcome & { status: number }>}
 */
export async function runRestCase(url, keys, { role, operation }) {
  const service = keys.service_role;
  const cleared = await restRequest(url, service, { method: 'DELETE', query: '?id=gte.0' });
  const seeded = await restRequest(url, service, { method: 'POST', query: '', body: SEED });
  if (cleared.status !== 204 || seeded.status !== 201) {
    throw new Error(`resetting the emulator failed: DELETE ${cleared.status}, POST ${seeded.status} ${await seeded.text()}`);
  }
  const response = await restRequest(url, keys[role], OPERATIONS[operation].rest);
  const text = await response.text();
  /** @type {import('./support.mjs').SqlError | null} */
  let error = null;
  if (!response.ok) {
    const body = JSON.parse(text);
    error = { code: body.code, message: body.message, details: body.details, hint: body.hint };
  }
  const readBack = await restRequest(url, keys[role], OPERATIONS.select.rest);
  if (readBack.status !== 200) throw new Error(`reading back as ${role} failed: ${readBack.status} ${await readBack.text()}`);
  return { status: response.status, error, rows: visible(await readBack.json()) };
}
