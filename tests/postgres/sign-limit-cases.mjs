// @ts-check
// THE table of sign-limit cases: sequences of inserts from client addresses, each with the answer it gets, run
// unchanged against the emulator's REST API and against PostgreSQL under the sign-limit migration (parity.test.mjs).
// Every case starts from an empty logbook and fresh counts, and ends by reading back what is stored.
//
// Both sides see the same addresses: PostgreSQL gets them in `request.headers` as PostgREST sets it, the emulator
// in `cf-connecting-ip` from a proxy it trusts (SIGN_LIMIT_EMULATOR_ARGS).
import pg from 'pg';
import { restRequest } from './permission-cases.mjs';
import { attempt, setRequestHeaders, TABLE } from './support.mjs';

/** The header hosted Supabase's proxy (Cloudflare) sets to the connecting client's address. */
export const ADDRESS_HEADER = 'cf-connecting-ip';

/** The migration's thresholds (private.sign_limits), which supabase/emulator.toml repeats. */
export const SIGN_LIMITS = { perRequest: 10, perAddress: 30, perMinute: 300 };

/**
 * The emulator trusts the test (on 127.0.0.1) as the proxy in front of it, so it takes the client's address from
 * `cf-connecting-ip` as hosted Supabase does, and limits loopback clients too, as the migration limits every address.
 */
export const SIGN_LIMIT_EMULATOR_ARGS = ['--trusted-proxy', '127.0.0.1', '--sign-limit-loopback'];

/**
 * A header value no one can parse as an address: such requests share the "unknown" budget with requests that
 * carry no address header at all.
 */
const NOT_AN_ADDRESS = 'not an address';

/**
 * @typedef {object} SignRequest
 * @property {string | null} from   the address header's value; null sends none
 * @property {number} entries       rows in the request's JSON array
 * @property {number} times         how often the request is sent, one after another
 * @property {number} status        the REST status of each
 * @property {string | null} code   PostgREST's error code = PostgreSQL's SQLSTATE; null when it is accepted
 */

/**
 * @typedef {object} SignLimitCase
 * @property {string} title
 * @property {import('./support.mjs').ApiRole} role
 * @property {SignRequest[]} requests
 * @property {number} stored   rows stored afterwards: every entry of the accepted requests, none of the refused
 */

/** @typedef {[from: string | null, entries: number, times: number, status: number, code: string | null]} RequestRow */

const { perRequest, perAddress, perMinute } = SIGN_LIMITS;

/** @type {[title: string, role: import('./support.mjs').ApiRole, requests: RequestRow[], stored: number][]} */
const TABLE_OF_CASES = [
  // title, role,
  //   from                    entries         times                       status  code
  //   rows stored afterwards
  ['an array over the per-request cap is refused whole and uses none of the budget', 'anon', [
    ['203.0.113.1',            perRequest + 1, 1,                          429,    'PT429'],
    ['203.0.113.1',            perRequest,     perAddress / perRequest,    201,    null],
    ['203.0.113.1',            1,              1,                          429,    'PT429'],
  ], perAddress],
  ['an array over the per-request cap is refused for signed-in visitors too', 'authenticated', [
    ['203.0.113.2',            perRequest + 1, 1,                          429,    'PT429'],
  ], 0],
  ['single signs past one address\'s budget are refused; another address is not', 'anon', [
    ['203.0.113.3',            1,              perAddress,                 201,    null],
    ['203.0.113.3',            1,              1,                          429,    'PT429'],
    ['203.0.113.4',            1,              1,                          201,    null],
  ], perAddress + 1],
  ['a signed-in visitor has the same budget per address', 'authenticated', [
    ['203.0.113.5',            perRequest,     perAddress / perRequest,    201,    null],
    ['203.0.113.5',            1,              1,                          429,    'PT429'],
  ], perAddress],
  ['an IPv6 client counts by its /64', 'anon', [
    ['2001:db8:1:2::1',        perRequest,     perAddress / perRequest,    201,    null],
    ['2001:db8:1:2:ffff::fe',  1,              1,                          429,    'PT429'],
    ['2001:db8:1:3::1',        1,              1,                          201,    null],
  ], perAddress + 1],
  ['requests without a usable address share one budget', 'anon', [
    [null,                     perRequest,     perAddress / perRequest,    201,    null],
    [NOT_AN_ADDRESS,           1,              1,                          429,    'PT429'],
  ], perAddress],
  ['everyone together has a ceiling a new address cannot pass', 'anon', [
    ...Array.from({ length: perMinute / perAddress }, (_, host) => /** @type {RequestRow} */ (
    [`198.51.100.${host + 1}`, perRequest,     perAddress / perRequest,    201,    null])),
    ['192.0.2.200',            1,              1,                          429,    'PT429'],
  ], perMinute],
  ['the service role is never limited', 'service_role', [
    ['203.0.113.6',            perRequest + 1, 1,                          201,    null],
    ['203.0.113.6',            1,              perAddress + 1,             201,    null],
    [null,                     perRequest + 1, 1,                          201,    null],
  ], 2 * (perRequest + 1) + perAddress + 1],
];

/** @type {SignLimitCase[]} */
export const SIGN_LIMIT_CASES = TABLE_OF_CASES.map(([title, role, rows, stored]) => ({
  title,
  role,
  requests: rows.map(([from, entries, times, status, code]) => ({ from, entries, times, status, code })),
  stored,
}));

/** @param {SignLimitCase} signLimitCase */
export function signLimitCaseTitle({ role, title }) {
  return `sign limit, ${role}: ${title}`;
}

/**
 * Every request a case sends, in order, with the entries it carries (names unique within the case).
 * @param {SignLimitCase} signLimitCase
 * @returns {{ request: SignRequest, body: { name: string, message: string }[] }[]}
 */
export function sentRequests({ requests }) {
  return requests.flatMap((request, row) =>
    Array.from({ length: request.times }, (_, time) => ({
      request,
      body: Array.from({ length: request.entries }, (_, entry) => ({ name: `${row + 1}.${time + 1}.${entry + 1}`, message: 'found it' })),
    })),
  );
}

/**
 * The names a case stores: every entry of the requests it expects accepted.
 * @param {SignLimitCase} signLimitCase
 */
export function expectedNames(signLimitCase) {
  return sentRequests(signLimitCase)
    .filter(({ request }) => request.code === null)
    .flatMap(({ body }) => body.map((entry) => entry.name))
    .sort();
}

/**
 * The request headers a request carries besides its keys. `x-forwarded-for` is always there and always different:
 * neither side may take the address from it.
 * @param {string | null} from
 * @param {number} index
 * @returns {Record<string, string>}
 */
function addressHeaders(from, index) {
  const forwarded = { 'x-forwarded-for': `10.0.${index % 256}.${Math.floor(index / 256) + 1}` };
  return from === null ? forwarded : { ...forwarded, [ADDRESS_HEADER]: from };
}

/**
 * What one backend did for one case: each request's error (null when accepted), and the names stored afterwards.
 * @typedef {object} SignLimitOutcome
 * @property {(import('./support.mjs').SqlError | null)[]} errors
 * @property {string[]} stored
 */

/**
 * Runs a case against PostgreSQL as PostgREST runs each request: `request.headers` set to its headers, the role's
 * SET LOCAL ROLE, the JSON array inserted in one statement. One transaction, rolled back: the case starts from an
 * empty table and empty counts, and its requests all fall into one minute.
 * @param {import('pg').Client} authenticator
 * @param {SignLimitCase} signLimitCase
 * @returns {Promise<SignLimitOutcome>}
 */
export async function runSqlSignLimitCase(authenticator, signLimitCase) {
  await authenticator.query('begin');
  try {
    await authenticator.query('set local role service_role');
    await authenticator.query(`delete from ${TABLE}`);
    await authenticator.query(`set local role ${pg.escapeIdentifier(signLimitCase.role)}`);
    /** @type {SignLimitOutcome['errors']} */
    const errors = [];
    for (const [index, { request, body }] of sentRequests(signLimitCase).entries()) {
      await setRequestHeaders(authenticator, addressHeaders(request.from, index));
      const { error } = await attempt(
        authenticator,
        `insert into ${TABLE} (name, message) select name, message from json_populate_recordset(null::${TABLE}, $1)`,
        [JSON.stringify(body)],
      );
      errors.push(error);
    }
    await authenticator.query('set local role service_role');
    const { rows } = await authenticator.query(`select name from ${TABLE}`);
    return { errors, stored: rows.map((row) => String(row.name)).sort() };
  } finally {
    await authenticator.query('rollback');
  }
}

/**
 * Runs a case against an emulator of its own (started with SIGN_LIMIT_EMULATOR_ARGS, so its counts are fresh):
 * each request a POST of the JSON array through the trusted proxy's address header, then a read of what is stored
 * as the service role.
 * @param {string} url
 * @param {import('./permission-cases.mjs').RoleKeys} keys
 * @param {SignLimitCase} signLimitCase
 * @returns {Promise<SignLimitOutcome & { statuses: number[] }>}
 */
export async function runRestSignLimitCase(url, keys, signLimitCase) {
  /** @type {SignLimitOutcome['errors']} */
  const errors = [];
  /** @type {number[]} */
  const statuses = [];
  for (const [index, { request, body }] of sentRequests(signLimitCase).entries()) {
    const response = await restRequest(url, keys[signLimitCase.role], { method: 'POST', query: '', body }, addressHeaders(request.from, index));
    const text = await response.text();
    statuses.push(response.status);
    if (response.ok) {
      errors.push(null);
    } else {
      const error = JSON.parse(text);
      errors.push({ code: error.code, message: error.message, details: error.details, hint: error.hint });
    }
  }
  const readBack = await restRequest(url, keys.service_role, { method: 'GET', query: '?select=name' });
  if (readBack.status !== 200) throw new Error(`reading back failed: ${readBack.status} ${await readBack.text()}`);
  /** @type {{ name: string }[]} */
  const rows = await readBack.json();
  return { statuses, errors, stored: rows.map((row) => row.name).sort() };
}

/**
 * Resolves once at least `seconds` are left in the current calendar minute. The emulator counts per minute of
 * its clock (this machine's), so a case run across the minute's turn would start a fresh budget halfway.
 * @param {number} seconds
 */
export async function untilMinuteHasLeft(seconds) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
