// @ts-check
// Moving the logbook without losing an entry. Emulator to hosted: entries signed through the emulator (thousands,
// and the hostile-text corpus with its 1 MiB messages), `geocache-emulator export --format sql`, applied with psql
// as the project owner to a database prepared like a hosted project: every row equal field for field, applying it
// again changes nothing, every moved entry is recorded as added for returning devices, and a visitor's sign afterwards
// gets a larger id. Hosted to emulator: the table as the dashboard's CSV export writes it, imported and served newest
// first with the same ids and instants.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { startEmulator } from '../../scripts/lib/emulator.mjs';
import { findPostgres } from '../../scripts/lib/postgres.mjs';
import { emulatorBinary } from '../../scripts/lib/repo.mjs';
import { hostileTexts } from '../fixtures/corpora.mjs';
import { setRequestHeaders, startSupabasePostgres, TABLE } from './support.mjs';

const run = promisify(execFile);
/** Entries signed through the emulator besides the corpus, ten to a request. */
const SIGNS = 2_000;
const ROWS_PER_REQUEST = 10;
/** Entries with times chosen to cover the text forms: no fraction, one digit, a trailing microsecond, old years. */
const CHOSEN_TIMES = [
  '2026-11-20 10:11:12+00',
  '2026-11-20 10:11:12.1+00',
  '2026-11-20 10:11:12.000001+00',
  '1999-12-31 23:59:59.999999+00',
  '1970-01-01 00:00:00+00',
  '2024-02-29T12:00:00.5+05:30',
];

/** @typedef {{ id: number, created_at: string, name: string, message: string }} EmulatorRow */
/** @typedef {{ id: string, micros: string, name: string, message: string }} HostedRow */

/** @type {import('./support.mjs').SupabaseDatabases} */
let postgres;
/** @type {string} */
let scratch;

before(async () => {
  postgres = await startSupabasePostgres();
  scratch = await mkdtemp(path.join(os.tmpdir(), 'geocache-moves-'));
});

after(async () => {
  await postgres?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/**
 * `geocache-emulator ARGS`; its standard output as bytes.
 * @param {string[]} args
 */
async function emulatorCommand(args) {
  const { stdout } = await run(emulatorBinary, args, { encoding: 'buffer', maxBuffer: 1 << 28 });
  return stdout;
}

/**
 * A PostgREST timestamp (`2026-11-20T10:11:12.12345+00:00`) as microseconds since the epoch.
 * @param {string} text
 */
function instantMicros(text) {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00:00$/.exec(text);
  assert.ok(match, `not PostgREST's timestamp form: ${text}`);
  const [, seconds = '', fraction = ''] = match;
  return (BigInt(Date.parse(`${seconds}Z`)) * 1000n + BigInt(fraction.padEnd(6, '0'))).toString();
}

/**
 * Every row an emulator serves, read page by page in `order` (keyset on the order's columns).
 * @param {import('../../scripts/lib/emulator.mjs').RunningEmulator} emulator
 * @param {'oldest' | 'newest'} order
 * @returns {Promise<EmulatorRow[]>}
 */
async function emulatorRows(emulator, order) {
  /** @type {EmulatorRow[]} */
  const rows = [];
  for (;;) {
    const last = rows.at(-1);
    const query = new URLSearchParams({ select: '*', limit: '1000' });
    if (order === 'oldest') {
      query.set('order', 'id.asc');
      if (last) query.set('id', `gt.${last.id}`);
    } else {
      query.set('order', 'created_at.desc,id.desc');
      if (last) query.set('or', `(created_at.lt."${last.created_at}",and(created_at.eq."${last.created_at}",id.lt.${last.id}))`);
    }
    const response = await fetch(`${emulator.url}/rest/v1/geocache_logs?${query}`, {
      headers: { apikey: emulator.serviceRoleKey, authorization: `Bearer ${emulator.serviceRoleKey}` },
    });
    assert.equal(response.status, 200, await response.clone().text());
    const page = /** @type {EmulatorRow[]} */ (await response.json());
    if (page.length === 0) return rows;
    rows.push(...page);
  }
}

/**
 * Signs `entries` through the emulator's REST API as a visitor does.
 * @param {import('../../scripts/lib/emulator.mjs').RunningEmulator} emulator
 * @param {{ name: string, message: string }[]} entries
 */
async function sign(emulator, entries) {
  const response = await fetch(`${emulator.url}/rest/v1/geocache_logs`, {
    method: 'POST',
    headers: {
      apikey: emulator.anonKey,
      authorization: `Bearer ${emulator.anonKey}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify(entries),
  });
  assert.equal(response.status, 201, await response.text());
}

/**
 * The hosted table, field for field: ids and times as exact integers, texts as stored.
 * @param {import('pg').Client} client
 * @returns {Promise<HostedRow[]>}
 */
async function hostedRows(client) {
  const result = await client.query(
    `select id::text, (extract(epoch from created_at) * 1000000)::bigint::text as micros, name, message
       from ${TABLE} as logs order by logs.id`,
  );
  return /** @type {HostedRow[]} */ (result.rows);
}

/**
 * Applies a SQL file with psql as the project's owner (`postgres`, not a superuser), stopping at the first error.
 * @param {string} database
 * @param {string} file
 */
async function psql(database, file) {
  const { host, port, password } = postgres.server;
  const url = `postgresql://postgres:${encodeURIComponent(password)}@${host}:${port}/${database}`;
  const { stderr } = await run(path.join(findPostgres().binDir, 'psql'), [url, '-v', 'ON_ERROR_STOP=1', '--quiet', '-f', file], {
    maxBuffer: 1 << 26,
  });
  return stderr;
}

/**
 * A field as the dashboard's CSV export writes it (Papa Parse's `unparse`): quoted only where it holds a quote, a
 * comma, a line break or a byte-order mark, or starts or ends with a space.
 * @param {string} text
 */
function csvField(text) {
  return /[",\r\n\uFEFF]/.test(text) || text.startsWith(' ') || text.endsWith(' ') ? `"${text.replaceAll('"', '""')}"` : text;
}

test('emulator to hosted: export sql, applied with psql as the owner, keeps every entry; twice adds nothing', async () => {
  const db = path.join(scratch, 'emulator.sqlite3');
  // Entries with chosen times first (an owner's earlier import), then visitors' signs.
  const chosen = path.join(scratch, 'chosen.csv');
  await writeFile(
    chosen,
    ['id,created_at,name,message', ...CHOSEN_TIMES.map((time, index) => `${index + 1},${time},Chosen ${index + 1},at ${time}`)].join('\r\n'),
  );
  await emulatorCommand(['import', '--db', db, chosen]);
  const emulator = await startEmulator({ db });
  /** @type {EmulatorRow[]} */
  let signed;
  try {
    const corpus = hostileTexts().filter((entry) => 'stored' in entry.outcome);
    assert.ok(corpus.some((entry) => Buffer.byteLength(entry.message) >= 1 << 20), 'the corpus has a 1 MiB message');
    for (const { name, message } of corpus) await sign(emulator, [{ name, message }]);
    for (let first = 0; first < SIGNS; first += ROWS_PER_REQUEST) {
      const entries = Array.from({ length: ROWS_PER_REQUEST }, (_, offset) => ({
        name: `Visitor ${first + offset}`,
        message: `Found it on visit ${first + offset} \\o/ 'quoted' "double" $$ -- ; \t tab`,
      }));
      await sign(emulator, entries);
    }
    signed = await emulatorRows(emulator, 'oldest');
  } finally {
    await emulator.stop();
  }
  assert.equal(signed.length, CHOSEN_TIMES.length + hostileTexts().filter((entry) => 'stored' in entry.outcome).length + SIGNS);

  const script = path.join(scratch, 'logbook.sql');
  await writeFile(script, await emulatorCommand(['export', '--db', db, '--format', 'sql']));
  await postgres.createDatabase('hosted', { supabaseDefaultPrivileges: true });
  await postgres.applyMigrations('hosted');
  const admin = await postgres.connect('supabase_admin', 'hosted');

  const firstRun = await psql('hosted', script);
  assert.match(firstRun, new RegExp(`${signed.length} entries added, 0 already stored`));
  const moved = await hostedRows(admin);
  assert.equal(moved.length, signed.length);
  signed.forEach((row, index) => {
    const hosted = moved[index];
    assert.ok(hosted);
    assert.equal(hosted.id, String(row.id));
    assert.equal(hosted.micros, instantMicros(row.created_at), `entry ${row.id}: the same instant to the microsecond`);
    assert.ok(Buffer.from(hosted.name).equals(Buffer.from(row.name)), `entry ${row.id}: the name byte for byte`);
    assert.ok(Buffer.from(hosted.message).equals(Buffer.from(row.message)), `entry ${row.id}: the message byte for byte`);
  });
  // Neither the sign limit nor the sign receipts saw the import.
  const counted = await admin.query('select (select count(*) from private.sign_counts)::int as counts, (select count(*) from private.sign_receipts)::int as receipts');
  assert.deepEqual(counted.rows, [{ counts: 0, receipts: 0 }]);
  // Every entry is older than the import's transaction, so the owners migration's trigger records each as added, once:
  // a returning visitor's device learns of entries older than its catch-up window, as of a restored one.
  const recordedAdded = `select changes.entry_id::text from public.geocache_log_changes as changes where changes.change = 'added' order by changes.entry_id`;
  const added = (await admin.query(recordedAdded)).rows.map((row) => row.entry_id);
  assert.deepEqual(added, signed.map((row) => String(row.id)));

  const identity = `pg_sequence_last_value(pg_get_serial_sequence('${TABLE}', 'id')::regclass)::text as last`;
  const before = (await admin.query(`select ${identity}`)).rows;
  const secondRun = await psql('hosted', script);
  assert.match(secondRun, new RegExp(`0 entries added, ${signed.length} already stored`));
  assert.doesNotMatch(secondRun, /other entries/);
  assert.deepEqual(await hostedRows(admin), moved, 'applied again, nothing changes');
  assert.deepEqual((await admin.query(`select ${identity}`)).rows, before, 'nor does the identity');
  assert.deepEqual((await admin.query(recordedAdded)).rows.map((row) => row.entry_id), added, 'nor what devices learn');

  // A visitor's sign through PostgREST (as anon, with the request's headers) gets a larger id.
  const api = await postgres.connect('authenticator', 'hosted');
  await api.query('begin');
  await api.query('set local role anon');
  await setRequestHeaders(api, { 'cf-connecting-ip': '203.0.113.7', 'idempotency-key': randomUUID() });
  const next = await api.query(`insert into ${TABLE} (name, message) values ('After', 'the move') returning id::text`);
  await api.query('commit');
  const largest = signed.at(-1)?.id ?? assert.fail('no entries');
  assert.ok(BigInt(next.rows[0].id) > BigInt(largest), `the next id ${next.rows[0].id} comes after ${largest}`);
});

test('hosted to emulator: the dashboard\'s CSV imported is served newest first with the same ids and times', async () => {
  await postgres.createDatabase('home', { supabaseDefaultPrivileges: true });
  await postgres.applyMigrations('home');
  const owner = await postgres.connect('supabase_admin', 'home');
  // A hosted logbook: visitors' signs (the server's ids and times), hostile texts among them.
  const api = await postgres.connect('authenticator', 'home');
  const texts = hostileTexts().filter((entry) => 'stored' in entry.outcome && !entry.generated);
  for (const [index, { name, message }] of [...texts, { name: 'Last', message: 'newest' }].entries()) {
    await api.query('begin');
    await api.query('set local role anon');
    await setRequestHeaders(api, { 'cf-connecting-ip': `203.0.113.${index % 200}` });
    await api.query(`insert into ${TABLE} (name, message) values ($1, $2)`, [name, message]);
    await api.query('commit');
  }
  // Older entries an owner restored, so newest first differs from id order.
  await owner.query(
    `insert into ${TABLE} (id, created_at, name, message) overriding system value
     values (1000, '2020-05-01 08:00:00.25+00', 'Restored', 'an old entry'), (1001, '2020-05-01 08:00:00.25+00', 'Twin', 'same time')`,
  );

  // The dashboard's export: the table's columns, PostgreSQL's text in a UTC session, CRLF, no final line break.
  await owner.query(`set time zone 'UTC'`);
  const table = await owner.query(`select id::text, created_at::text, name, message from ${TABLE} as logs order by logs.id`);
  const csv = ['id,created_at,name,message', ...table.rows.map((row) => [row.id, row.created_at, csvField(row.name), csvField(row.message)].join(','))].join('\r\n');
  assert.match(table.rows[0].created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?\+00$/);
  const file = path.join(scratch, 'geocache_logs_rows.csv');
  await writeFile(file, csv);

  const db = path.join(scratch, 'home.sqlite3');
  const printed = (await emulatorCommand(['import', '--db', db, file])).toString();
  assert.match(printed, new RegExp(`^added ${table.rows.length} entries`));
  const emulator = await startEmulator({ db });
  try {
    const served = await emulatorRows(emulator, 'newest');
    const hosted = (
      await owner.query(
        `select id::text, (extract(epoch from created_at) * 1000000)::bigint::text as micros, name, message
           from ${TABLE} as logs order by logs.created_at desc, logs.id desc`,
      )
    ).rows;
    assert.deepEqual(
      served.map((row) => ({ id: String(row.id), micros: instantMicros(row.created_at), name: row.name, message: row.message })),
      hosted,
    );
    assert.deepEqual(served.slice(-2).map((row) => row.id), [1001, 1000], 'ties on time are newest id first');
  } finally {
    await emulator.stop();
  }
});
