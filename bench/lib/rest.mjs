// @ts-check
// The benchmark's own calls to the emulator (PostgREST wire protocol), made with the service-role key: seeding,
// counting, finding the oldest entry, removing what a run signed.
import { makeEntries } from './entries.mjs';

/** Rows per seeding request: about 0.5 MB of JSON, well under a server's body limit. */
const SEED_BATCH = 2000;

/**
 * @typedef {{ url: string, anonKey: string, serviceRoleKey: string }} Backend
 */

/** @param {string} key */
function headers(key, extra = {}) {
  return { apikey: key, Authorization: `Bearer ${key}`, ...extra };
}

/**
 * @param {Response} response
 * @param {string} what
 */
async function ensureOk(response, what) {
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${await response.text()}`);
}

/**
 * Grows the table from `from` to `to` entries, appending older ones (entries are generated newest first).
 * @param {Backend} backend
 * @param {number} from
 * @param {number} to
 */
export async function seed(backend, from, to) {
  for (let start = from; start < to; start += SEED_BATCH) {
    const rows = makeEntries(start, Math.min(to, start + SEED_BATCH));
    const response = await fetch(`${backend.url}/rest/v1/geocache_logs`, {
      method: 'POST',
      headers: headers(backend.serviceRoleKey, { 'Content-Type': 'application/json', Prefer: 'return=minimal' }),
      body: JSON.stringify(rows),
    });
    await ensureOk(response, `seeding entries ${start}..${start + rows.length}`);
  }
}

/** @param {Backend} backend */
export async function countEntries(backend) {
  const response = await fetch(`${backend.url}/rest/v1/geocache_logs?select=id&limit=1`, {
    headers: headers(backend.serviceRoleKey, { Prefer: 'count=exact' }),
  });
  await ensureOk(response, 'counting entries');
  await response.body?.cancel();
  const total = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
  if (!total) throw new Error(`counting entries: no total in Content-Range "${response.headers.get('content-range')}"`);
  return Number(total[1]);
}

/**
 * The oldest entry's created_at exactly as the server writes it (the page puts it in <time dateTime>).
 * @param {Backend} backend
 */
export async function oldestCreatedAt(backend) {
  const response = await fetch(`${backend.url}/rest/v1/geocache_logs?select=created_at&order=created_at.asc&limit=1`, {
    headers: headers(backend.serviceRoleKey),
  });
  await ensureOk(response, 'reading the oldest entry');
  const [row] = /** @type {{ created_at: string }[]} */ (await response.json());
  if (!row) throw new Error('the table is empty');
  return row.created_at;
}

/**
 * The full list as the page requests it, as bytes (the input of the parse benchmark).
 * @param {Backend} backend
 */
export async function listBody(backend) {
  const response = await fetch(`${backend.url}/rest/v1/geocache_logs?select=*&order=created_at.desc`, {
    headers: headers(backend.anonKey),
  });
  await ensureOk(response, 'reading the list');
  return Buffer.from(await response.arrayBuffer());
}

/**
 * Removes the entries a run signed, so every run sees the same N.
 * @param {Backend} backend
 * @param {string} name
 */
export async function deleteByName(backend, name) {
  const response = await fetch(`${backend.url}/rest/v1/geocache_logs?name=eq.${encodeURIComponent(name)}`, {
    method: 'DELETE',
    headers: headers(backend.serviceRoleKey, { Prefer: 'return=minimal' }),
  });
  await ensureOk(response, `deleting the entry signed as ${name}`);
}
