// @ts-check
// The benchmark's own calls to the emulator (PostgREST wire protocol), made with the service-role key: seeding,
// counting, finding the oldest entry and the entry at a position, reading the list in pages as the page does,
// removing what a run signed.
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
 * The created_at of the table's entry at `position` from the newest (0-based), in the page's order; null past
 * the end.
 * @param {Backend} backend
 * @param {number} position
 */
export async function createdAtAt(backend, position) {
  const response = await fetch(
    `${backend.url}/rest/v1/geocache_logs?select=created_at&order=created_at.desc,id.desc&offset=${position}&limit=1`,
    { headers: headers(backend.serviceRoleKey) },
  );
  await ensureOk(response, `reading the entry at position ${position}`);
  const [row] = /** @type {{ created_at: string }[]} */ (await response.json());
  return row?.created_at ?? null;
}

/**
 * @typedef {object} ListPage
 * @property {string} query         the request's query string, as the page's client writes it
 * @property {Buffer} body          the response bytes
 * @property {string | null} contentRange
 * @property {number} rows
 * @property {{ id: number, created_at: string } | null} last  where the next page starts (null: the empty page)
 */

/**
 * The keyset filter after (C, I), as the client writes it (double quotes and backslashes escaped in the quotes).
 * @param {{ id: number, created_at: string }} last
 */
export function cursorFilter(last) {
  const quoted = `"${last.created_at.replaceAll(/["\\]/g, (c) => `\\${c}`)}"`;
  return `(created_at.lt.${quoted},and(created_at.eq.${quoted},id.lt.${last.id}))`;
}

/**
 * The query of a page: newest first by created_at then id, `pageSize` rows, after `last` when given.
 * @param {{ id: number, created_at: string } | null} last
 * @param {number} pageSize
 */
export function pageQuery(last, pageSize) {
  const query = new URLSearchParams({ select: '*', order: 'created_at.desc,id.desc', limit: String(pageSize) });
  if (last) query.set('or', cursorFilter(last));
  return query.toString();
}

/**
 * Every entry read as the page reads them, in keyset pages with the anon key, up to and including the empty
 * page that ends the listing: the bytes of the parse benchmark, page for page.
 * @param {Backend} backend
 * @param {number} pageSize
 * @returns {Promise<ListPage[]>}
 */
export async function listPages(backend, pageSize) {
  /** @type {ListPage[]} */
  const pages = [];
  /** @type {{ id: number, created_at: string } | null} */
  let last = null;
  for (;;) {
    const query = pageQuery(last, pageSize);
    const response = await fetch(`${backend.url}/rest/v1/geocache_logs?${query}`, { headers: headers(backend.anonKey) });
    await ensureOk(response, `reading page ${pages.length + 1} of the list`);
    const body = Buffer.from(await response.arrayBuffer());
    const rows = /** @type {{ id: number, created_at: string }[]} */ (JSON.parse(body.toString('utf8')));
    const end = rows.at(-1);
    last = end ? { id: end.id, created_at: end.created_at } : null;
    pages.push({ query, body, contentRange: response.headers.get('content-range'), rows: rows.length, last });
    if (!last) return pages;
  }
}

/**
 * How many rows one read of the whole list returns (the server's row cap, when the table holds more).
 * @param {Backend} backend
 */
export async function rowsInOneRead(backend) {
  const response = await fetch(`${backend.url}/rest/v1/geocache_logs?select=id&order=created_at.desc`, {
    headers: headers(backend.anonKey),
  });
  await ensureOk(response, 'reading the whole list at once');
  return /** @type {unknown[]} */ (await response.json()).length;
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
