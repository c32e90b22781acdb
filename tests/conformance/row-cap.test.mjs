// @ts-check
// The row cap of a hosted project (PostgREST's db-max-rows): a read returns at most `[api] max_rows` rows of
// supabase/config.toml whatever its limit, Content-Range says which, and a count still counts every row.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { supabaseConfig } from '../../scripts/lib/emulator.mjs';
import { TABLE, rest, sampleEntries, startBackend } from './support.mjs';

/**
 * Inserts `count` rows in one request as the service role (writes are never capped).
 * @param {import('@supabase/supabase-js').SupabaseClient} client
 * @param {number} count
 */
async function seed(client, count) {
  const { data, error } = await client.from(TABLE).insert(sampleEntries(count)).select('id');
  assert.equal(error, null);
  assert.equal(data?.length, count);
}

test('by default the cap is [api] max_rows of supabase/config.toml', async (t) => {
  const match = /^\s*max_rows\s*=\s*(\d+)\s*$/m.exec(await readFile(supabaseConfig, 'utf8'));
  assert.ok(match, 'supabase/config.toml sets [api] max_rows');
  const maxRows = Number(match[1]);
  const { emulator, publishable, secret } = await startBackend(t);
  await seed(secret, maxRows + 5);

  const all = await publishable.from(TABLE).select('id');
  assert.equal(all.error, null);
  assert.equal(all.data?.length, maxRows);

  const counted = await publishable.from(TABLE).select('id', { count: 'exact' });
  assert.equal(counted.status, 206);
  assert.equal(counted.count, maxRows + 5);
  assert.equal(counted.data?.length, maxRows);

  const raw = await rest(emulator, `/rest/v1/${TABLE}?select=id`);
  assert.equal(raw.headers.get('content-range'), `0-${maxRows - 1}/*`);
  const rawCounted = await rest(emulator, `/rest/v1/${TABLE}?select=id`, { headers: { prefer: 'count=exact' } });
  assert.equal(rawCounted.headers.get('content-range'), `0-${maxRows - 1}/${maxRows + 5}`);
});

test('limit, range and count under a cap of 5 (--max-rows)', async (t) => {
  const { emulator, publishable, secret } = await startBackend(t, { extraArgs: ['--max-rows', '5'] });
  await seed(secret, 12);

  const limited = await publishable.from(TABLE).select('id').order('id').limit(50);
  assert.deepEqual(
    limited.data?.map(({ id }) => id),
    [1, 2, 3, 4, 5],
  );
  const ranged = await publishable.from(TABLE).select('id', { count: 'exact' }).order('id').range(8, 20);
  assert.equal(ranged.status, 206);
  assert.equal(ranged.count, 12);
  assert.deepEqual(
    ranged.data?.map(({ id }) => id),
    [9, 10, 11, 12],
  );
  const raw = await rest(emulator, `/rest/v1/${TABLE}?select=id&order=id&offset=8&limit=13`, {
    headers: { prefer: 'count=exact' },
  });
  assert.equal(raw.headers.get('content-range'), '8-11/12');

  const pastTheEnd = await publishable.from(TABLE).select('id', { count: 'exact' }).range(13, 20);
  assert.equal(pastTheEnd.status, 416);
  assert.equal(pastTheEnd.error?.code, 'PGRST103');

  const empty = await rest(emulator, `/rest/v1/${TABLE}?select=id&id=eq.0`, { headers: { prefer: 'count=exact' } });
  assert.equal(empty.status, 200);
  assert.equal(empty.headers.get('content-range'), '*/0');
});

test('a config file of its own sets the cap', async (t) => {
  const directory = await mkdtemp(path.join(tmpdir(), 'geocache-config-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  const config = path.join(directory, 'config.toml');
  await writeFile(config, 'project_id = "x"\n[api]\nmax_rows = 3\n');
  const { publishable, secret } = await startBackend(t, { config });
  await seed(secret, 6);
  const all = await publishable.from(TABLE).select('id');
  assert.equal(all.data?.length, 3);
});
