// @ts-check
// THE table of the owner's moderation contract: who asks (role, owner or not, assurance level) x what (remove an
// entry by id, list the removed entries, restore one, restore an entry that is not removed, read the changes) x what
// happens (status, code, the rows answered, and the entries, removed entries and changes afterwards). parity.test.mjs
// runs it unchanged against PostgreSQL under the migrations, as PostgREST runs a request (`set local role`,
// `request.jwt.claims`, `request.headers`), and against the emulator's REST API with real accounts and sessions.
//
// Every case starts from two entries the service role stored with a created_at in the past (as an import does): "Kept",
// and "Spam", which the service role then removed. Ids differ between the backends, so rows and messages name entries.
import { randomUUID } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import pg from 'pg';
import { ownerCommand } from '../../scripts/lib/emulator.mjs';
import { attempt } from './support.mjs';

/** @typedef {'anon' | 'signed in' | 'non-owner at aal2' | 'owner at aal1' | 'owner at aal2' | 'former owner at aal2' | 'service_role'} Actor */
/** @typedef {'walker' | 'hiker' | 'owner' | 'former'} Account */

/**
 * Who each actor is: a role and, when signed in, an account and the session's assurance level. "hiker" has a second
 * factor but is no owner; "former" was an owner when its session began and was removed from the owners since.
 * @type {Record<Actor, { role: import('./support.mjs').ApiRole, account?: Account, aal?: 'aal1' | 'aal2' }>}
 */
export const ACTORS = {
  anon: { role: 'anon' },
  'signed in': { role: 'authenticated', account: 'walker', aal: 'aal1' },
  'non-owner at aal2': { role: 'authenticated', account: 'hiker', aal: 'aal2' },
  'owner at aal1': { role: 'authenticated', account: 'owner', aal: 'aal1' },
  'owner at aal2': { role: 'authenticated', account: 'owner', aal: 'aal2' },
  'former owner at aal2': { role: 'authenticated', account: 'former', aal: 'aal2' },
  service_role: { role: 'service_role' },
};

/** @type {Record<Account, string>} */
export const EMAILS = {
  walker: 'walker@example.com',
  hiker: 'hiker@example.com',
  owner: 'owner@example.com',
  former: 'former-owner@example.com',
};

const SEED = [
  { name: 'Kept', message: 'found it', created_at: '2024-05-01T12:00:00+00:00' },
  { name: 'Spam', message: 'buy now', created_at: '2024-05-02T12:00:00+00:00' },
];
/** The changes the seed itself records: both entries are older than their insert, and Spam was removed. */
const SEEDED_CHANGES = ['Kept added', 'Spam added', 'Spam removed'];

/** @typedef {{ Kept: number, Spam: number }} Ids */

/**
 * @typedef {object} Operation
 * @property {(ids: Ids, cursor: number) => { method: string, path: string, body?: unknown, prefer?: string }} rest
 *   the request supabase-js sends
 * @property {(ids: Ids, cursor: number) => { sql: string, values: unknown[] }} sql  the statement PostgREST runs
 */

export const OPERATIONS = /** @satisfies {Record<string, Operation>} */ ({
  'remove by id': {
    rest: (ids) => ({
      method: 'DELETE',
      path: `/rest/v1/geocache_logs?id=eq.${ids.Kept}&select=name`,
      prefer: 'return=representation',
    }),
    sql: (ids) => ({ sql: 'delete from public.geocache_logs where id = $1 returning name', values: [ids.Kept] }),
  },
  'list removed': {
    rest: (ids) => ({
      method: 'POST',
      path: `/rest/v1/rpc/removed_geocache_logs?select=name&id=in.(${ids.Kept},${ids.Spam})&order=removed_at.desc,id.desc`,
      body: {},
    }),
    sql: (ids) => ({
      sql: 'select name from public.removed_geocache_logs() where id = any($1) order by removed_at desc, id desc',
      values: [[ids.Kept, ids.Spam]],
    }),
  },
  restore: {
    rest: (ids) => ({ method: 'POST', path: '/rest/v1/rpc/restore_geocache_log?select=name', body: { entry_id: ids.Spam } }),
    sql: (ids) => ({ sql: 'select name from public.restore_geocache_log($1)', values: [ids.Spam] }),
  },
  'restore an entry not removed': {
    rest: (ids) => ({ method: 'POST', path: '/rest/v1/rpc/restore_geocache_log?select=name', body: { entry_id: ids.Kept } }),
    sql: (ids) => ({ sql: 'select name from public.restore_geocache_log($1)', values: [ids.Kept] }),
  },
  'read changes': {
    rest: (_, cursor) => ({
      method: 'GET',
      path: `/rest/v1/geocache_log_changes?select=entry_id,change&seq=gt.${cursor}&order=seq.asc`,
    }),
    sql: (_, cursor) => ({
      sql: 'select entry_id, change from public.geocache_log_changes where seq > $1 order by seq',
      values: [cursor],
    }),
  },
});

/**
 * @typedef {object} ModerationCase
 * @property {Actor} actor
 * @property {keyof typeof OPERATIONS} operation
 * @property {number} status             the REST status
 * @property {string | null} code        PostgREST's code = PostgreSQL's SQLSTATE; null when it succeeds
 * @property {string[] | null} answered  the rows answered, by entry name (null for an error)
 * @property {string[]} entries          the entries stored afterwards, sorted
 * @property {string[]} removed          the removed entries afterwards, sorted
 * @property {string[]} changes          the changes recorded since before the seed, in order
 */

/** @typedef {Pick<ModerationCase, 'entries' | 'removed' | 'changes'>} State */
/** @type {State} */
const UNCHANGED = { entries: ['Kept'], removed: ['Spam'], changes: SEEDED_CHANGES };
/** @type {State} */
const KEPT_REMOVED = { entries: [], removed: ['Kept', 'Spam'], changes: [...SEEDED_CHANGES, 'Kept removed'] };
/** @type {State} */
const SPAM_RESTORED = { entries: ['Kept', 'Spam'], removed: [], changes: [...SEEDED_CHANGES, 'Spam added'] };

/** Everyone who may not moderate: the same answers whatever their role, account or assurance level. */
const REFUSED_TO = /** @type {const} */ (['signed in', 'non-owner at aal2', 'owner at aal1', 'former owner at aal2']);

/** @type {[Actor, ModerationCase['operation'], number, string | null, string[] | null, State][]} */
const TABLE_OF_CASES = [
  // actor            operation                       status  code      answered         afterwards
  ['anon',            'remove by id',                 401,    '42501',  null,            UNCHANGED],
  ['anon',            'list removed',                 401,    '42501',  null,            UNCHANGED],
  ['anon',            'restore',                      401,    '42501',  null,            UNCHANGED],
  ['anon',            'restore an entry not removed', 401,    '42501',  null,            UNCHANGED],
  ['anon',            'read changes',                 200,    null,     SEEDED_CHANGES,  UNCHANGED],

  ...REFUSED_TO.flatMap((actor) => /** @type {typeof TABLE_OF_CASES} */ ([
    [actor,           'remove by id',                 200,    null,     [],              UNCHANGED],
    [actor,           'list removed',                 403,    '42501',  null,            UNCHANGED],
    [actor,           'restore',                      403,    '42501',  null,            UNCHANGED],
    [actor,           'restore an entry not removed', 403,    '42501',  null,            UNCHANGED],
    [actor,           'read changes',                 200,    null,     SEEDED_CHANGES,  UNCHANGED],
  ])),

  ['owner at aal2',   'remove by id',                 200,    null,     ['Kept'],        KEPT_REMOVED],
  ['owner at aal2',   'list removed',                 200,    null,     ['Spam'],        UNCHANGED],
  ['owner at aal2',   'restore',                      200,    null,     ['Spam'],        SPAM_RESTORED],
  ['owner at aal2',   'restore an entry not removed', 500,    'P0002',  null,            UNCHANGED],
  ['owner at aal2',   'read changes',                 200,    null,     SEEDED_CHANGES,  UNCHANGED],

  ['service_role',    'remove by id',                 200,    null,     ['Kept'],        KEPT_REMOVED],
  ['service_role',    'list removed',                 403,    '42501',  null,            UNCHANGED],
  ['service_role',    'restore',                      403,    '42501',  null,            UNCHANGED],
  ['service_role',    'restore an entry not removed', 403,    '42501',  null,            UNCHANGED],
  ['service_role',    'read changes',                 200,    null,     SEEDED_CHANGES,  UNCHANGED],
];

/** @type {ModerationCase[]} */
export const MODERATION_CASES = TABLE_OF_CASES.map(([actor, operation, status, code, answered, state]) => ({
  actor, operation, status, code, answered, ...state,
}));

/** @param {ModerationCase} moderationCase */
export function moderationCaseTitle({ actor, operation, status, code }) {
  return `${actor} ${operation}: ${code === null ? `allowed (${status})` : `${code} (${status})`}`;
}

/**
 * What one backend did for one case.
 * @typedef {object} ModerationOutcome
 * @property {import('./support.mjs').SqlError | null} error  with entry ids written as <name>
 * @property {string[] | null} answered
 * @property {State} after
 */

/**
 * Rows answered, by name: an entry's `name`, or a change's entry name and kind.
 * @param {Record<string, unknown>[]} rows
 * @param {Ids} ids
 */
function named(rows, ids) {
  const names = new Map(Object.entries(ids).map(([name, id]) => [String(id), name]));
  return rows.map((row) =>
    row.change === undefined ? String(row.name) : `${names.get(String(row.entry_id)) ?? `#${row.entry_id}`} ${row.change}`,
  );
}

/**
 * An error with the entries' ids in its texts written as `<name>`, so both backends' texts compare.
 * @param {import('./support.mjs').SqlError | null} error
 * @param {Ids} ids
 */
function withNames(error, ids) {
  if (error === null) return null;
  const name = (/** @type {string | null} */ text) =>
    text === null ? null : Object.entries(ids).reduce((out, [entry, id]) => out.replaceAll(`Entry ${id} `, `Entry <${entry}> `), text);
  return { code: error.code, message: /** @type {string} */ (name(error.message)), details: name(error.details), hint: name(error.hint) };
}

// --- PostgreSQL --------------------------------------------------------------------------------------------------

/**
 * The accounts on PostgreSQL: rows of `auth.users`, as the dashboard's *Add user* makes them, and the owners. The
 * former owner is named and then removed again.
 * @param {pg.Client} admin  a connection that may write `auth.users` and `private.logbook_owners` (the project owner)
 * @returns {Promise<Record<Account, string>>} the accounts' ids
 */
export async function createSqlAccounts(admin) {
  /** @type {Record<string, string>} */
  const ids = {};
  for (const [account, email] of Object.entries(EMAILS)) {
    ids[account] = randomUUID();
    await admin.query('insert into auth.users (id, email) values ($1, $2)', [ids[account], email]);
  }
  await admin.query('insert into private.logbook_owners (user_id) values ($1), ($2)', [ids.owner, ids.former]);
  await admin.query('delete from private.logbook_owners where user_id = $1', [ids.former]);
  return /** @type {Record<Account, string>} */ (ids);
}

/**
 * Switches the current transaction to a request as PostgREST makes it: the role, the token's claims, the headers.
 * @param {pg.Client} client
 * @param {Actor} actor
 * @param {Record<Account, string>} accounts
 */
export async function actAs(client, actor, accounts) {
  const { role, account, aal } = ACTORS[actor];
  const claims = account === undefined ? { role } : { role, sub: accounts[account], aal };
  await client.query(`set local role ${pg.escapeIdentifier(role)}`);
  await client.query(`select set_config('request.jwt.claims', $1, true), set_config('request.headers', '{}', true)`, [
    JSON.stringify(claims),
  ]);
}

/**
 * Runs a case against PostgreSQL through PostgREST's login role, in a transaction that is rolled back.
 * @param {pg.Client} authenticator
 * @param {Record<Account, string>} accounts
 * @param {ModerationCase} moderationCase
 * @returns {Promise<ModerationOutcome>}
 */
export async function runSqlModerationCase(authenticator, accounts, { actor, operation }) {
  await authenticator.query('begin');
  try {
    await actAs(authenticator, 'service_role', accounts);
    const last = await authenticator.query('select coalesce(max(seq), 0)::int as seq from public.geocache_log_changes');
    const cursor = last.rows[0].seq;
    /** @type {Record<string, number>} */
    const ids = {};
    for (const entry of SEED) {
      const stored = await authenticator.query(
        'insert into public.geocache_logs (name, message, created_at) values ($1, $2, $3) returning id',
        [entry.name, entry.message, entry.created_at],
      );
      ids[entry.name] = Number(stored.rows[0].id);
    }
    await authenticator.query('delete from public.geocache_logs where id = $1', [ids.Spam]);
    const entryIds = /** @type {Ids} */ (ids);

    await actAs(authenticator, actor, accounts);
    const { sql, values } = OPERATIONS[operation].sql(entryIds, cursor);
    const { rows, error } = await attempt(authenticator, sql, values);

    await actAs(authenticator, 'service_role', accounts);
    const entries = await authenticator.query('select name from public.geocache_logs where id = any($1) order by name', [
      [entryIds.Kept, entryIds.Spam],
    ]);
    const changes = await authenticator.query(
      'select entry_id, change from public.geocache_log_changes where seq > $1 and entry_id = any($2) order by seq',
      [cursor, [entryIds.Kept, entryIds.Spam]],
    );
    await actAs(authenticator, 'owner at aal2', accounts);
    const removed = await authenticator.query(
      'select name from public.removed_geocache_logs() where id = any($1) order by name',
      [[entryIds.Kept, entryIds.Spam]],
    );
    return {
      error: withNames(error, entryIds),
      answered: rows === null ? null : named(rows, entryIds),
      after: {
        entries: named(entries.rows, entryIds),
        removed: named(removed.rows, entryIds),
        changes: named(changes.rows, entryIds),
      },
    };
  } finally {
    await authenticator.query('rollback');
  }
}

// --- The emulator ------------------------------------------------------------------------------------------------

/** A password for the emulator's accounts. */
const PASSWORD = 'a long enough password';

/**
 * The bearer token each actor sends: the anon and service_role keys, and access tokens of real sessions. Owners are
 * named with `geocache-emulator owner add` on the database file the emulator serves; the former owner is removed with
 * `owner remove` after its session reached aal2. Second factors are TOTP factors enrolled and verified as the owner's
 * page does, with codes computed from the enrolment's secret.
 * @param {import('../../scripts/lib/emulator.mjs').RunningEmulator} emulator
 * @param {string} db  the database file it serves
 * @returns {Promise<Record<Actor, string>>}
 */
export async function emulatorTokens(emulator, db) {
  for (const account of /** @type {const} */ (['owner', 'former'])) {
    const added = await ownerCommand(['add', '--db', db, EMAILS[account]], { input: `${PASSWORD}\n` });
    if (added.code !== 0) throw new Error(`owner add failed: ${added.stderr}`);
  }
  const auth = (/** @type {string} */ path, /** @type {unknown} */ body, token = emulator.anonKey) =>
    fetch(`${emulator.url}/auth/v1${path}`, {
      method: 'POST',
      headers: { apikey: emulator.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (response) => {
      const json = await response.json();
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    });
  const signIn = async (/** @type {Account} */ account) =>
    /** @type {string} */ ((await auth('/token?grant_type=password', { email: EMAILS[account], password: PASSWORD })).access_token);
  const atAal2 = async (/** @type {string} */ token) => {
    const factor = await auth('/factors', { factor_type: 'totp', friendly_name: 'app' }, token);
    const challenge = await auth(`/factors/${factor.id}/challenge`, {}, token);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(factor.totp.secret), digits: 6, period: 30 });
    const verified = await auth(`/factors/${factor.id}/verify`, { challenge_id: challenge.id, code: totp.generate() }, token);
    return /** @type {string} */ (verified.access_token);
  };
  await auth('/signup', { email: EMAILS.walker, password: PASSWORD });
  await auth('/signup', { email: EMAILS.hiker, password: PASSWORD });
  const ownerAal1 = await signIn('owner');
  const tokens = {
    anon: emulator.anonKey,
    'signed in': await signIn('walker'),
    'non-owner at aal2': await atAal2(await signIn('hiker')),
    'owner at aal1': ownerAal1,
    'owner at aal2': await atAal2(await signIn('owner')),
    'former owner at aal2': await atAal2(await signIn('former')),
    service_role: emulator.serviceRoleKey,
  };
  const removed = await ownerCommand(['remove', '--db', db, EMAILS.former]);
  if (removed.code !== 0) throw new Error(`owner remove failed: ${removed.stderr}`);
  return tokens;
}

/**
 * One request to the emulator's REST API as supabase-js sends it, with the actor's token as bearer.
 * @param {import('../../scripts/lib/emulator.mjs').RunningEmulator} emulator
 * @param {string} token
 * @param {{ method: string, path: string, body?: unknown, prefer?: string }} request
 */
export function moderationRequest(emulator, token, { method, path, body, prefer }) {
  const apikey = token === emulator.serviceRoleKey ? emulator.serviceRoleKey : emulator.anonKey;
  /** @type {Record<string, string>} */
  const headers = { apikey, authorization: `Bearer ${token}` };
  if (method === 'GET') headers['accept-profile'] = 'public';
  else headers['content-profile'] = 'public';
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (prefer !== undefined) headers.prefer = prefer;
  return fetch(`${emulator.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/**
 * Runs a case against the emulator: the seed and the reads afterwards as the service role (the removed entries as the
 * owner at aal2), the operation as the case's actor. Earlier cases' rows stay; every read names this case's entries.
 * @param {import('../../scripts/lib/emulator.mjs').RunningEmulator} emulator
 * @param {Record<Actor, string>} tokens
 * @param {ModerationCase} moderationCase
 * @returns {Promise<ModerationOutcome & { status: number }>}
 */
export async function runRestModerationCase(emulator, tokens, { actor, operation }) {
  const service = tokens.service_role;
  const json = async (/** @type {Response} */ response, /** @type {string} */ what) => {
    const text = await response.text();
    if (!response.ok) throw new Error(`${what}: ${response.status} ${text}`);
    return JSON.parse(text);
  };
  const newest = await json(
    await moderationRequest(emulator, tokens.anon, { method: 'GET', path: '/rest/v1/geocache_log_changes?select=seq&order=seq.desc&limit=1' }),
    'the newest change',
  );
  const cursor = newest[0]?.seq ?? 0;
  /** @type {Record<string, number>} */
  const ids = {};
  for (const entry of SEED) {
    const [stored] = await json(
      await moderationRequest(emulator, service, { method: 'POST', path: '/rest/v1/geocache_logs?select=id', body: entry, prefer: 'return=representation' }),
      'seeding',
    );
    ids[entry.name] = stored.id;
  }
  const entryIds = /** @type {Ids} */ (ids);
  const cleared = await moderationRequest(emulator, service, { method: 'DELETE', path: `/rest/v1/geocache_logs?id=eq.${entryIds.Spam}` });
  if (cleared.status !== 204) throw new Error(`removing the seeded Spam: ${cleared.status}`);

  const response = await moderationRequest(emulator, tokens[actor], OPERATIONS[operation].rest(entryIds, cursor));
  const text = await response.text();
  const body = text === '' ? null : JSON.parse(text);
  const error = response.ok ? null : { code: body.code, message: body.message, details: body.details, hint: body.hint };

  const both = `in.(${entryIds.Kept},${entryIds.Spam})`;
  const entries = await json(
    await moderationRequest(emulator, service, { method: 'GET', path: `/rest/v1/geocache_logs?select=name&id=${both}&order=name` }),
    'reading the entries back',
  );
  const changes = await json(
    await moderationRequest(emulator, service, {
      method: 'GET',
      path: `/rest/v1/geocache_log_changes?select=entry_id,change&seq=gt.${cursor}&entry_id=${both}&order=seq`,
    }),
    'reading the changes back',
  );
  const removed = await json(
    await moderationRequest(emulator, tokens['owner at aal2'], {
      method: 'POST',
      path: `/rest/v1/rpc/removed_geocache_logs?select=name&id=${both}&order=name`,
      body: {},
    }),
    'reading the removed entries back',
  );
  return {
    status: response.status,
    error: withNames(error, entryIds),
    answered: response.ok ? named(body ?? [], entryIds) : null,
    after: { entries: named(entries, entryIds), removed: named(removed, entryIds), changes: named(changes, entryIds) },
  };
}
