// @ts-check
// Signs stored once per Idempotency-Key (supabase/migrations/*_geocache_logs_sign_receipts.sql) on a real PostgreSQL
// set up like a Supabase project, driven as PostgREST drives it: each request its own committed transaction, with
// `request.headers` set to the request's headers, SET LOCAL ROLE, and the insert PostgREST builds from a JSON body
// (RETURNING what `Prefer: return=representation` sends back).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { API_ROLES, asRole, attempt, setRequestHeaders, startHostedProject, TABLE } from './support.mjs';

const KEY_HEADER = 'idempotency-key';
const ADDRESS_HEADER = 'cf-connecting-ip';
const RETENTION_DAYS = 30;
const MALFORMED = {
  code: 'PT400',
  message: 'The Idempotency-Key header is not a UUID.',
  details: 'A sign\'s key is a UUID written as 8-4-4-4-12 hexadecimal digits, such as 123e4567-e89b-42d3-a456-426614174000.',
  hint: 'Send a new random UUID with each sign and the same one when sending it again, or leave the header out.',
};

/** @type {import('./support.mjs').SupabaseDatabases} */
let postgres;
/** @type {import('pg').Client} */
let api;
/** @type {import('pg').Client} */
let admin;

before(async () => {
  ({ postgres, api, admin } = await startHostedProject());
});

after(async () => {
  await postgres?.stop();
});

/** @typedef {{ name: string, message: string }} Entry */

/**
 * The insert PostgREST runs for POST /rest/v1/geocache_logs with `Prefer: return=representation` and `select=*`.
 * @param {pg.Client} client
 * @param {Entry[]} body
 */
function insert(client, body) {
  return attempt(
    client,
    `insert into ${TABLE} (name, message) select name, message from json_populate_recordset(null::${TABLE}, $1) returning *`,
    [JSON.stringify(body)],
  );
}

/**
 * One request, committed as PostgREST commits it (rolled back when it fails).
 * @param {pg.Client} client
 * @param {{ role?: import('./support.mjs').ApiRole, headers: Record<string, string>, body: Entry[] }} request
 */
async function send(client, { role = 'anon', headers, body }) {
  await client.query('begin');
  try {
    await client.query(`set local role ${pg.escapeIdentifier(role)}`);
    await setRequestHeaders(client, headers);
    const outcome = await insert(client, body);
    await client.query(outcome.error ? 'rollback' : 'commit');
    return outcome;
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
}

/**
 * How many stored entries have this name (read as the owner, outside any request).
 * @param {string} name
 */
async function stored(name) {
  const { rows } = await admin.query(`select count(*)::int as n from ${TABLE} where name = $1`, [name]);
  return rows[0].n;
}

/** @param {string} key */
async function receipt(key) {
  const { rows } = await admin.query('select key from private.sign_receipts where key = $1', [key]);
  return rows.length;
}

for (const role of API_ROLES) {
  test(`${role}: a resend with the same key stores nothing and returns no rows; a new key stores a new entry`, async () => {
    const key = randomUUID();
    const name = `${role} resender`;
    const headers = { [KEY_HEADER]: key, [ADDRESS_HEADER]: '203.0.113.1' };
    const first = await send(api, { role, headers, body: [{ name, message: 'found it' }] });
    assert.equal(first.error, null, JSON.stringify(first.error));
    assert.equal(first.rows?.length, 1);
    for (let resend = 1; resend <= 2; resend++) {
      const again = await send(api, { role, headers, body: [{ name, message: 'found it' }] });
      assert.deepEqual(again, { rows: [], rowCount: 0, error: null }, 'a success with no rows (PostgREST: 201, [])');
    }
    assert.equal(await stored(name), 1);
    // The same entry under another key is another sign.
    const other = await send(api, { role, headers: { ...headers, [KEY_HEADER]: randomUUID() }, body: [{ name, message: 'found it' }] });
    assert.equal(other.rows?.length, 1);
    assert.equal(await stored(name), 2);
  });
}

test('several connections sending one key at once store one entry: the others wait, then store nothing', async () => {
  const CLIENTS = 6;
  const key = randomUUID();
  const name = 'impatient walker';
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => postgres.connect('authenticator', 'hosted')));
  for (const [index, client] of clients.entries()) {
    await client.query('begin');
    await client.query('set local role anon');
    await setRequestHeaders(client, { [KEY_HEADER]: key, [ADDRESS_HEADER]: `203.0.113.${10 + index}` });
  }
  const pids = await Promise.all(clients.map(async (client) => (await client.query('select pg_backend_pid() as pid')).rows[0].pid));
  // All but one wait on the first one's receipt until it commits: only then does the first commit.
  const waiting = async () =>
    (await admin.query(`select count(*)::int as n from pg_stat_activity where pid = any($1) and wait_event_type = 'Lock'`, [pids])).rows[0].n;
  // Polled until a deadline, not for a number of tries: on a busy machine the backends take their time to get there.
  const othersWait = (async () => {
    const deadline = Date.now() + 60_000;
    while ((await waiting()) < CLIENTS - 1) {
      assert.ok(Date.now() < deadline, `${await waiting()} of ${CLIENTS - 1} requests wait on the first`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const outcomes = await Promise.all(
    clients.map(async (client) => {
      const outcome = await insert(client, [{ name, message: 'sent from every tab' }]);
      await othersWait;
      await client.query('commit');
      return outcome;
    }),
  );
  for (const outcome of outcomes) assert.equal(outcome.error, null, JSON.stringify(outcome.error));
  assert.deepEqual(outcomes.map((outcome) => outcome.rows?.length).sort(), [0, 0, 0, 0, 0, 1]);
  assert.equal(await stored(name), 1);
});

test('a sign without a key is stored as sent, every time, and leaves no receipt', async () => {
  const before = (await admin.query('select count(*)::int as n from private.sign_receipts')).rows[0].n;
  const name = 'keyless';
  /** @type {Record<string, string>[]} */
  const requests = [{ [ADDRESS_HEADER]: '203.0.113.30' }, { [ADDRESS_HEADER]: '203.0.113.30' }, {}];
  for (const headers of requests) {
    const outcome = await send(api, { headers, body: [{ name, message: 'same words' }] });
    assert.equal(outcome.rows?.length, 1, JSON.stringify(outcome.error));
  }
  assert.equal(await stored(name), 3);
  assert.equal((await admin.query('select count(*)::int as n from private.sign_receipts')).rows[0].n, before);
});

test('a key that is not a UUID is refused with PT400 and a clear message; nothing is stored', async () => {
  const uuid = randomUUID();
  for (const key of ['', 'not-a-uuid', uuid.replaceAll('-', ''), `{${uuid}}`, ` ${uuid}`, `${uuid}0`, uuid.replace(/[0-9a-f]$/, 'g'), `${uuid}, ${uuid}`]) {
    const outcome = await send(api, { headers: { [KEY_HEADER]: key }, body: [{ name: 'malformed', message: key }] });
    assert.deepEqual(outcome.error, MALFORMED, `key ${JSON.stringify(key)}`);
  }
  assert.equal(await stored('malformed'), 0);
  assert.equal(await receipt(uuid), 0);
});

test('a key is a UUID in either case: the upper-case form of a stored key is a resend', async () => {
  const key = randomUUID();
  const name = 'case-blind';
  assert.equal((await send(api, { headers: { [KEY_HEADER]: key.toUpperCase() }, body: [{ name, message: 'x' }] })).rows?.length, 1);
  assert.deepEqual((await send(api, { headers: { [KEY_HEADER]: key }, body: [{ name, message: 'x' }] })).rows, []);
  assert.equal(await stored(name), 1);
});

test('a request of several entries with one key stores them all once; resending it stores none', async () => {
  const key = randomUUID();
  const name = 'family';
  const body = [1, 2, 3].map((index) => ({ name, message: `walker ${index}` }));
  const headers = { [KEY_HEADER]: key, [ADDRESS_HEADER]: '203.0.113.40' };
  const first = await send(api, { headers, body });
  assert.deepEqual(first.rows?.map((row) => row.message), ['walker 1', 'walker 2', 'walker 3']);
  const again = await send(api, { headers, body });
  assert.deepEqual(again.rows, []);
  assert.equal(await stored(name), 3);
});

test('a resend of a stored sign after the address\'s budget is used up is not refused and stores nothing', async () => {
  const address = '203.0.113.50';
  const key = randomUUID();
  const name = 'budget';
  assert.equal((await send(api, { headers: { [KEY_HEADER]: key, [ADDRESS_HEADER]: address }, body: [{ name, message: 'original' }] })).rows?.length, 1);
  await asRole(api, 'anon', async (client) => {
    // Use up the rest of the minute's budget (the limit is read from nowhere: sign until refused).
    await setRequestHeaders(client, { [ADDRESS_HEADER]: address });
    let refused = null;
    for (let index = 0; index < 1000 && refused === null; index++) refused = (await insert(client, [{ name: 'filler', message: `${index}` }])).error;
    assert.equal(refused?.code, 'PT429', 'the address\'s budget is used up');

    await setRequestHeaders(client, { [KEY_HEADER]: key, [ADDRESS_HEADER]: address });
    assert.deepEqual(await insert(client, [{ name, message: 'original' }]), { rows: [], rowCount: 0, error: null }, 'the resend is not refused');
    await setRequestHeaders(client, { [KEY_HEADER]: randomUUID(), [ADDRESS_HEADER]: address });
    assert.equal((await insert(client, [{ name, message: 'new' }])).error?.code, 'PT429', 'a new sign still is');
  });
  assert.equal(await stored(name), 1);
});

test('a refused request records no key, so the same sign may be sent again', async () => {
  const key = randomUUID();
  await admin.query('begin');
  try {
    await admin.query('set local role anon');
    await setRequestHeaders(admin, { [KEY_HEADER]: key, [ADDRESS_HEADER]: '203.0.113.60' });
    const tooMany = Array.from({ length: 1000 }, (_, index) => ({ name: 'flood', message: `${index}` }));
    assert.equal((await insert(admin, tooMany)).error?.code, 'PT429');
    await admin.query('reset role');
    assert.equal(await receipt(key), 0, 'the refused statement\'s receipt is rolled back with it');
    await admin.query('set local role anon');
    assert.equal((await insert(admin, [{ name: 'flood', message: 'one' }])).rows?.length, 1);
  } finally {
    await admin.query('rollback');
  }
});

test('no API role can read or change the receipts, or call the trigger\'s function', async () => {
  for (const role of API_ROLES) {
    await asRole(api, role, async (client) => {
      for (const sql of [
        'select * from private.sign_receipts',
        `insert into private.sign_receipts (key) values ('${randomUUID()}')`,
        'delete from private.sign_receipts',
        'update private.sign_receipts set received_at = now()',
        'select private.geocache_logs_sign_once()',
      ]) {
        const { error } = await attempt(client, sql);
        assert.equal(error?.code, '42501', `${role}: ${sql}: ${JSON.stringify(error)}`);
      }
    });
  }
});

test('select=* still returns exactly id, created_at, name and message', async () => {
  const key = randomUUID();
  const signed = await send(api, { headers: { [KEY_HEADER]: key }, body: [{ name: 'shape', message: 'kept' }] });
  assert.deepEqual(Object.keys(signed.rows?.[0] ?? {}), ['id', 'created_at', 'name', 'message']);
  const read = await asRole(api, 'anon', (client) => client.query(`select * from ${TABLE} limit 1`));
  assert.deepEqual(read.fields.map((field) => field.name), ['id', 'created_at', 'name', 'message']);
});

test(`receipts older than ${RETENTION_DAYS} days are deleted as new keys arrive, a bounded number per sign`, async () => {
  await admin.query('begin');
  try {
    await admin.query(
      `insert into private.sign_receipts (key, received_at)
       select gen_random_uuid(), now() - make_interval(days => $1) - interval '1 second' from generate_series(1, 150)`,
      [RETENTION_DAYS],
    );
    const kept = randomUUID();
    // Recorded by an earlier request (another transaction id), as every receipt but this request's own is.
    await admin.query(
      `insert into private.sign_receipts (key, received_at, transaction_id)
       values ($1, now() - make_interval(days => $2) + interval '1 hour', '1'::xid8)`,
      [kept, RETENTION_DAYS],
    );
    const stale = async () =>
      (await admin.query(`select count(*)::int as n from private.sign_receipts where received_at < now() - make_interval(days => $1)`, [RETENTION_DAYS])).rows[0].n;
    assert.equal(await stale(), 150);
    for (const expected of [50, 0]) {
      await admin.query('set local role anon');
      await setRequestHeaders(admin, { [KEY_HEADER]: randomUUID(), [ADDRESS_HEADER]: '203.0.113.70' });
      assert.equal((await insert(admin, [{ name: 'cleaner', message: 'x' }])).rows?.length, 1);
      await admin.query('reset role');
      assert.equal(await stale(), expected, 'one sign deletes at most 100');
    }
    assert.equal(await receipt(kept), 1, `a receipt younger than ${RETENTION_DAYS} days is kept`);
    // A resend touches no old receipt: only a new receipt pays for the clean-up.
    await admin.query(
      `insert into private.sign_receipts (key, received_at) values (gen_random_uuid(), now() - make_interval(days => $1 + 1))`,
      [RETENTION_DAYS],
    );
    await admin.query('set local role anon');
    await setRequestHeaders(admin, { [KEY_HEADER]: kept });
    assert.deepEqual((await insert(admin, [{ name: 'cleaner', message: 'x' }])).rows, []);
    await admin.query('reset role');
    assert.equal(await stale(), 1);
  } finally {
    await admin.query('rollback');
  }
});

test('the trigger\'s look-up and the clean-up are index scans on the receipts', async () => {
  await admin.query('begin');
  try {
    // Enough rows, analysed, that a sequential scan would be the planner's choice without the indexes.
    await admin.query(`insert into private.sign_receipts (key, received_at) select gen_random_uuid(), now() - n * interval '1 minute' from generate_series(1, 20000) as n`);
    await admin.query('analyze private.sign_receipts');
    for (const sql of [
      `select from private.sign_receipts where key = '${randomUUID()}' and transaction_id = pg_current_xact_id()`,
      `select ctid from private.sign_receipts where received_at < now() - interval '${RETENTION_DAYS} days' limit 100 for update skip locked`,
    ]) {
      const plan = JSON.stringify((await admin.query(`explain (format json) ${sql}`)).rows[0]['QUERY PLAN']);
      assert.match(plan, /"Node Type":"Index (Only )?Scan"/, `${sql}: ${plan}`);
      assert.doesNotMatch(plan, /Seq Scan/, sql);
    }
  } finally {
    await admin.query('rollback');
  }
});

test('applying the migrations again keeps the receipts: a resend is still skipped', async () => {
  const key = randomUUID();
  const name = 'reapplied';
  assert.equal((await send(api, { headers: { [KEY_HEADER]: key }, body: [{ name, message: 'x' }] })).rows?.length, 1);
  await postgres.applyMigrations('hosted');
  assert.deepEqual((await send(api, { headers: { [KEY_HEADER]: key }, body: [{ name, message: 'x' }] })).rows, []);
  assert.equal(await stored(name), 1);
  const triggers = await admin.query(`select tgname from pg_trigger where tgrelid = $1::regclass and not tgisinternal order by tgname`, [TABLE]);
  assert.deepEqual(triggers.rows.map((row) => row.tgname), [
    'geocache_logs_added',
    'geocache_logs_removed',
    'geocache_logs_sign_limit',
    'geocache_logs_sign_once',
  ]);
});
