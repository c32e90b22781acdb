// @ts-check
// The sign limit (supabase/migrations/*_geocache_logs_sign_limit.sql) on a real PostgreSQL set up like a Supabase
// project, driven as PostgREST drives it: `request.headers` set to the request's headers, SET LOCAL ROLE, and the
// insert PostgREST builds from a JSON body. The thresholds are read from the database, so tuning them keeps these
// tests meaningful.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { API_ROLES, asRole, attempt, setRequestHeaders, startHostedProject, TABLE } from './support.mjs';

/** The header hosted Supabase's proxy (Cloudflare) sets to the connecting client's address. */
const ADDRESS_HEADER = 'cf-connecting-ip';
const REFUSED = 'PT429';

/** @type {import('./support.mjs').SupabaseDatabases} */
let postgres;
/** @type {import('pg').Client} */
let api;
/** @type {import('pg').Client} */
let admin;
/** @type {{ perRequest: number, perAddress: number, perMinute: number }} */
let limits;

before(async () => {
  ({ postgres, api, admin } = await startHostedProject());
  const { rows } = await admin.query(
    `select max_signs_per_request as "perRequest", max_signs_per_address_minute as "perAddress",
            max_signs_per_minute as "perMinute", client_address_header as header
       from private.sign_limits`,
  );
  assert.equal(rows.length, 1);
  assert.equal(rows[0].header, ADDRESS_HEADER);
  limits = rows[0];
});

after(async () => {
  await postgres?.stop();
});

/**
 * `count` entries as one request body.
 * @param {number} count
 * @param {string} [label]
 */
function entries(count, label = 'visitor') {
  return Array.from({ length: count }, (_, index) => ({ name: `${label} ${index + 1}`, message: 'found it' }));
}

/**
 * One POST /rest/v1/geocache_logs as PostgREST runs it: the JSON body's rows inserted in one statement.
 * @param {import('pg').Client} client
 * @param {{ name: string, message: string }[]} body
 */
function sign(client, body) {
  return attempt(
    client,
    `insert into ${TABLE} (name, message) select name, message from json_populate_recordset(null::${TABLE}, $1)`,
    [JSON.stringify(body)],
  );
}

/**
 * Signs `count` entries from `address`, one request per sign, and asserts every one is accepted.
 * @param {import('pg').Client} client
 * @param {string} address
 * @param {number} count
 */
async function signOneByOne(client, address, count) {
  await setRequestHeaders(client, { [ADDRESS_HEADER]: address });
  for (let index = 1; index <= count; index++) {
    const { error } = await sign(client, entries(1, `${address} #${index}`));
    assert.equal(error, null, `sign ${index} of ${count} from ${address}: ${JSON.stringify(error)}`);
  }
}

/**
 * Signs `count` entries from `address` in as few requests as the per-request limit allows; all must be accepted.
 * @param {import('pg').Client} client
 * @param {string} address
 * @param {number} count
 */
async function signInBatches(client, address, count) {
  await setRequestHeaders(client, { [ADDRESS_HEADER]: address });
  for (let done = 0; done < count; done += limits.perRequest) {
    const { error } = await sign(client, entries(Math.min(limits.perRequest, count - done), address));
    assert.equal(error, null, `${address}: ${JSON.stringify(error)}`);
  }
}

/**
 * @param {import('./support.mjs').SqlError | null} error
 * @param {RegExp} message
 */
function assertRefused(error, message) {
  assert.ok(error, 'the request is refused');
  assert.equal(error.code, REFUSED, JSON.stringify(error));
  assert.match(error.message, message);
  assert.ok(error.details, 'the refusal says what the limit is');
  assert.match(error.hint ?? '', /\w/, 'the refusal says what to do');
}

/** @param {import('pg').Client} client */
async function storedCount(client) {
  const { rows } = await client.query(`select count(*)::int as n from ${TABLE}`);
  return rows[0].n;
}

for (const role of /** @type {const} */ (['anon', 'authenticated'])) {
  test(`${role}: a family of five signing from one phone network is never refused`, async () => {
    await asRole(api, role, async (client) => {
      // One after another, as five phones (or one phone passed around) sign…
      await signOneByOne(client, '203.0.113.10', 5);
      // …and five at once, should a page ever send them together.
      await setRequestHeaders(client, { [ADDRESS_HEADER]: '203.0.113.10' });
      const together = await sign(client, entries(5, 'family'));
      assert.equal(together.error, null, JSON.stringify(together.error));
      assert.equal(await storedCount(client), 10);
    });
  });
}

test('a flood of single signs from one address is refused after its minute\'s budget; another address is not', async () => {
  await asRole(api, 'anon', async (client) => {
    await signOneByOne(client, '203.0.113.20', limits.perAddress);
    const refused = await sign(client, entries(1, 'one too many'));
    assertRefused(refused.error, /too many signs from your network/i);
    assert.equal(await storedCount(client), limits.perAddress, 'the refused sign is not stored');

    // Someone else, in the same minute, from another address.
    await setRequestHeaders(client, { [ADDRESS_HEADER]: '203.0.113.21' });
    const other = await sign(client, entries(1, 'neighbour'));
    assert.equal(other.error, null, JSON.stringify(other.error));
  });
});

test('a JSON array of 10,000 entries is refused whole, stores nothing and uses none of the budget', async () => {
  await asRole(api, 'anon', async (client) => {
    await setRequestHeaders(client, { [ADDRESS_HEADER]: '203.0.113.30' });
    const flood = await sign(client, entries(10_000, 'spam'));
    assertRefused(flood.error, /too many entries in one request: 10000/i);
    const justOver = await sign(client, entries(limits.perRequest + 1, 'spam'));
    assertRefused(justOver.error, /too many entries in one request/i);
    assert.equal(await storedCount(client), 0);
    // The refused requests counted for nothing: the whole minute's budget is still there.
    await signInBatches(client, '203.0.113.30', limits.perAddress);
    assert.equal(await storedCount(client), limits.perAddress);
  });
});

test('the ceiling for all visitors together refuses even a new address once passed', async () => {
  await asRole(api, 'anon', async (client) => {
    let signed = 0;
    for (let host = 1; signed < limits.perMinute; host++) {
      const count = Math.min(limits.perAddress, limits.perMinute - signed);
      await signInBatches(client, `198.51.100.${host}`, count);
      signed += count;
    }
    await setRequestHeaders(client, { [ADDRESS_HEADER]: '192.0.2.200' });
    const refused = await sign(client, entries(1, 'latecomer'));
    assertRefused(refused.error, /too many signs right now/i);
    assert.equal(await storedCount(client), limits.perMinute);
  });
});

test('x-forwarded-for is not the address: changing it does not buy a new budget', async () => {
  await asRole(api, 'anon', async (client) => {
    for (let index = 0; index < limits.perAddress; index++) {
      await setRequestHeaders(client, { [ADDRESS_HEADER]: '203.0.113.40', 'x-forwarded-for': `10.0.${index}.1, 203.0.113.40` });
      assert.equal((await sign(client, entries(1))).error, null);
    }
    await setRequestHeaders(client, { [ADDRESS_HEADER]: '203.0.113.40', 'x-forwarded-for': '10.99.99.99' });
    assertRefused((await sign(client, entries(1))).error, /from your network/i);
  });
});

test('an IPv6 client counts by its /64: another address in it shares the budget, another /64 does not', async () => {
  await asRole(api, 'anon', async (client) => {
    await signInBatches(client, '2001:db8:1:2::1', limits.perAddress);
    await setRequestHeaders(client, { [ADDRESS_HEADER]: '2001:db8:1:2:ffff:ffff:ffff:fffe' });
    assertRefused((await sign(client, entries(1))).error, /from your network/i);
    await setRequestHeaders(client, { [ADDRESS_HEADER]: '2001:db8:1:3::1' });
    assert.equal((await sign(client, entries(1))).error, null);
    // An IPv4 address written as IPv6 is one address, not part of a shared /64.
    await signInBatches(client, '::ffff:192.0.2.1', limits.perAddress);
    await setRequestHeaders(client, { [ADDRESS_HEADER]: '::ffff:192.0.2.2' });
    assert.equal((await sign(client, entries(1))).error, null);
  });
});

test('requests without a usable address share one budget rather than escaping the limit', async () => {
  await asRole(api, 'anon', async (client) => {
    await setRequestHeaders(client, { 'x-forwarded-for': '10.0.0.1' });
    for (let done = 0; done < limits.perAddress; done += limits.perRequest) {
      assert.equal((await sign(client, entries(Math.min(limits.perRequest, limits.perAddress - done)))).error, null);
    }
    await setRequestHeaders(client, { [ADDRESS_HEADER]: 'not an address' });
    assertRefused((await sign(client, entries(1))).error, /from your network/i);
  });
});

test('the service role, and statements without request.headers (SQL editor, migrations), are never limited', async () => {
  await asRole(api, 'service_role', async (client) => {
    await setRequestHeaders(client, { [ADDRESS_HEADER]: '203.0.113.50' });
    const imported = await sign(client, entries(10_000, 'import'));
    assert.equal(imported.error, null, JSON.stringify(imported.error));
  });
  for (const role of /** @type {const} */ (['anon', 'authenticated'])) {
    await asRole(api, role, async (client) => {
      // `request.headers` unset, or set empty (a pooled connection's earlier request may leave it so).
      assert.equal((await sign(client, entries(limits.perRequest + 1))).error, null);
      await client.query(`select set_config('request.headers', '', true)`);
      assert.equal((await sign(client, entries(limits.perRequest + 1))).error, null);
    });
  }
  const owner = await postgres.connect('postgres', 'hosted');
  await owner.query('begin');
  try {
    await setRequestHeaders(owner, { [ADDRESS_HEADER]: '203.0.113.50' });
    assert.equal((await sign(owner, entries(limits.perRequest + 1))).error, null, 'the project owner is not limited');
  } finally {
    await owner.query('rollback');
  }
});

test('no API role can read or change the counters or the limits', async () => {
  for (const role of API_ROLES) {
    await asRole(api, role, async (client) => {
      for (const sql of [
        'select * from private.sign_counts',
        'select * from private.sign_limits',
        'update private.sign_limits set max_signs_per_minute = null',
        'delete from private.sign_counts',
        `select private.sign_limit_client('192.0.2.1')`,
      ]) {
        const { error } = await attempt(client, sql);
        assert.equal(error?.code, '42501', `${role}: ${sql}: ${JSON.stringify(error)}`);
      }
    });
  }
});

test('counter rows older than the previous minute are deleted as signs arrive, a bounded number per statement', async () => {
  await admin.query('begin');
  try {
    await admin.query(
      `insert into private.sign_counts (client, window_start, signs)
       select '192.0.2.' || n, date_trunc('minute', now()) - interval '1 hour', 1 from generate_series(1, 150) as n`,
    );
    // The previous minute's rows stay: a request begun just before the minute turned may still count in it.
    await admin.query(
      `insert into private.sign_counts (client, window_start, signs)
       values ('192.0.2.250', date_trunc('minute', now()) - interval '1 minute', 7)`,
    );
    const stale = async () =>
      (await admin.query(`select count(*)::int as n from private.sign_counts where window_start < date_trunc('minute', now()) - interval '1 minute'`)).rows[0].n;
    await admin.query('set local role anon');
    await setRequestHeaders(admin, { [ADDRESS_HEADER]: '203.0.113.60' });
    assert.equal((await sign(admin, entries(1))).error, null);
    await admin.query('reset role');
    assert.equal(await stale(), 50, 'one statement deletes at most 100');
    await admin.query('set local role anon');
    assert.equal((await sign(admin, entries(1))).error, null);
    await admin.query('reset role');
    assert.equal(await stale(), 0);
    const current = await admin.query(`select client, signs from private.sign_counts order by client`);
    assert.deepEqual(current.rows, [
      { client: '*', signs: 2 },
      { client: '192.0.2.250', signs: 7 },
      { client: '203.0.113.60', signs: 2 },
    ]);
  } finally {
    await admin.query('rollback');
  }
});

test('concurrent signs from one address never get past its budget (race-free counting)', async () => {
  await postgres.createDatabase('race', { supabaseDefaultPrivileges: true });
  await postgres.applyMigrations('race');
  const { perAddress } = limits;
  const CLIENTS = 6;
  const SIGNS_EACH = Math.ceil((perAddress * 1.5) / CLIENTS);
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => postgres.connect('authenticator', 'race')));
  /** @type {Map<string, { attempts: number, accepted: number }>} attempts and acceptances per minute window */
  const windows = new Map();
  await Promise.all(
    clients.map(async (client) => {
      for (let index = 0; index < SIGNS_EACH; index++) {
        // Each sign is its own request: its own transaction, committed, as PostgREST runs it.
        await client.query('begin');
        await client.query('set local role anon');
        await setRequestHeaders(client, { [ADDRESS_HEADER]: '203.0.113.70' });
        const minute = (await client.query(`select date_trunc('minute', now())::text as minute`)).rows[0].minute;
        const window = windows.get(minute) ?? { attempts: 0, accepted: 0 };
        windows.set(minute, window);
        window.attempts++;
        const { error } = await sign(client, entries(1));
        await client.query('commit');
        if (error === null) window.accepted++;
        else assert.equal(error.code, REFUSED, JSON.stringify(error));
      }
    }),
  );
  const race = await postgres.connect('supabase_admin', 'race');
  for (const [minute, { attempts, accepted }] of windows) {
    assert.equal(accepted, Math.min(attempts, perAddress), `window ${minute}: ${accepted} of ${attempts} accepted`);
    const counted = await race.query(
      `select signs from private.sign_counts where client = '203.0.113.70' and window_start = $1::timestamptz`,
      [minute],
    );
    // The window's row may already be cleaned up if the run crossed into the next minute.
    if (counted.rows.length > 0) assert.equal(counted.rows[0].signs, accepted);
  }
  const stored = (await race.query(`select count(*)::int as n from ${TABLE}`)).rows[0].n;
  assert.equal(stored, [...windows.values()].reduce((sum, window) => sum + window.accepted, 0));
});

test('an owner changes the limits with SQL (as docs/database.md shows), and applying the migration again keeps them', async () => {
  await postgres.createDatabase('tuned', { supabaseDefaultPrivileges: true });
  await postgres.applyMigrations('tuned');
  const owner = await postgres.connect('postgres', 'tuned');
  // docs/database.md's examples, run by the project owner.
  await owner.query('update private.sign_limits set max_signs_per_address_minute = 2, max_signs_per_minute = null');
  await postgres.applyMigrations('tuned');
  const kept = await owner.query('select max_signs_per_address_minute, max_signs_per_minute from private.sign_limits');
  assert.deepEqual(kept.rows, [{ max_signs_per_address_minute: 2, max_signs_per_minute: null }]);
  const triggers = await owner.query(
    `select tgname from pg_trigger where tgrelid = $1::regclass and not tgisinternal and tgname = 'geocache_logs_sign_limit'`,
    [TABLE],
  );
  assert.equal(triggers.rows.length, 1, 'applying it again leaves one sign-limit trigger');

  const tuned = await postgres.connect('authenticator', 'tuned');
  await asRole(tuned, 'anon', async (client) => {
    await signOneByOne(client, '203.0.113.80', 2);
    assertRefused((await sign(client, entries(1))).error, /from your network/i);
  });

  await owner.query('drop trigger if exists geocache_logs_sign_limit on public.geocache_logs');
  await asRole(tuned, 'anon', async (client) => {
    await setRequestHeaders(client, { [ADDRESS_HEADER]: '203.0.113.80' });
    assert.equal((await sign(client, entries(limits.perRequest + 1))).error, null, 'without the trigger nothing is limited');
  });
});
