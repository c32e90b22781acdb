// @ts-check
// The storage conformance cases as a table, so the same cases run against @supabase/supabase-js in Node
// (storage.test.mjs) and against geocache-client in Chromium. Each case is a function of clients shaped like
// supabase-js's (`client.storage.listBuckets()`, `client.storage.from(bucket).upload(...)`, results as
// `{ data, error }`); it throws on the first mismatch. Nothing here imports from Node, so a browser can load it.
//
// A runner starts a fresh emulator per case with `--storage-policy` set to each of the case's `policies`, then
// calls `run` with:
//   admin  a client with the legacy service_role key (the service role: bucket admin, bypasses policies)
//   anon   a client with the anon key and no session
//   user   a client with the anon key, signed in as a fresh user (the authenticated role)
//   url    the emulator's base URL, for fetching public and signed URLs with plain `fetch`
//   sleep  (ms) => Promise<void>

/**
 * @typedef {{ storage: any }} StorageHost  a client with supabase-js's `storage` member
 * @typedef {object} StorageCaseContext
 * @property {StorageHost} admin
 * @property {StorageHost} anon
 * @property {StorageHost} user
 * @property {string} url
 * @property {(ms: number) => Promise<void>} sleep
 * @typedef {object} StorageCase
 * @property {string} name
 * @property {string[]} policies  `BUCKET:OPERATION:ROLE` values for the emulator's --storage-policy
 * @property {(context: StorageCaseContext) => Promise<void>} run
 */

/**
 * When a signed URL expires: its token's `exp` claim, in seconds since the epoch.
 * @param {string} signedUrl
 */
function tokenExpiry(signedUrl) {
  const payload = (new URL(signedUrl).searchParams.get('token') ?? '').split('.')[1] ?? '';
  const base64 = payload.replaceAll('-', '+').replaceAll('_', '/').padEnd(Math.ceil(payload.length / 4) * 4, '=');
  return Number(JSON.parse(atob(base64)).exp);
}

/** Storage's answer to a row-level security refusal. */
export const RLS_MESSAGE = 'new row violates row-level security policy';

/**
 * @param {unknown} actual
 * @param {unknown} expected
 * @param {string} what
 */
function equal(actual, expected, what) {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

/**
 * The data of a successful result.
 * @param {{ data: any, error: any }} result
 * @param {string} what
 */
function ok(result, what) {
  if (result.error !== null && result.error !== undefined) {
    throw new Error(`${what}: unexpected error ${result.error.name}: ${result.error.message} (${result.error.statusCode})`);
  }
  return result.data;
}

/**
 * Asserts a StorageApiError: HTTP 400 (Storage's status for every refusal) with `statusCode` and `message` from the
 * body, and no data.
 * @param {{ data: any, error: any }} result
 * @param {string} statusCode
 * @param {string} message
 * @param {string} what
 */
function refused(result, statusCode, message, what) {
  equal(result.data, null, `${what}: data`);
  if (!result.error) throw new Error(`${what}: expected an error, got data ${JSON.stringify(result.data)}`);
  equal(result.error.name, 'StorageApiError', `${what}: error name`);
  equal(result.error.status, 400, `${what}: HTTP status`);
  equal(result.error.statusCode, statusCode, `${what}: statusCode`);
  equal(result.error.message, message, `${what}: message`);
}

/**
 * @param {StorageHost} admin
 * @param {string} id
 * @param {Record<string, unknown>} [options]
 */
async function createBucket(admin, id, options = { public: false }) {
  equal(ok(await admin.storage.createBucket(id, options), `createBucket ${id}`), { name: id }, `createBucket ${id}`);
}

/**
 * @param {StorageHost} client
 * @param {string} bucket
 * @param {string} path
 */
async function downloadText(client, bucket, path) {
  const blob = ok(await client.storage.from(bucket).download(path), `download ${bucket}/${path}`);
  return blob.text();
}

/** @type {StorageCase[]} */
export const STORAGE_CASES = [
  {
    name: 'upload, list, download and remove',
    policies: [],
    async run({ admin }) {
      await createBucket(admin, 'caches');
      const notes = admin.storage.from('caches');
      const uploaded = ok(await notes.upload('logs/first.txt', 'found it', { contentType: 'text/plain' }), 'upload text');
      equal([uploaded.path, uploaded.fullPath, typeof uploaded.id], ['logs/first.txt', 'caches/logs/first.txt', 'string'], 'upload result');
      ok(await notes.upload('logs/photo.png', new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' })), 'upload blob');
      ok(await notes.upload('readme.txt', 'top level', { contentType: 'text/plain' }), 'upload top level');

      const top = ok(await notes.list(), 'list top level');
      equal(top.map((/** @type {any} */ entry) => [entry.name, entry.id === null]), [['logs', true], ['readme.txt', false]], 'top level');
      const logs = ok(await notes.list('logs', { sortBy: { column: 'name', order: 'desc' } }), 'list folder');
      equal(logs.map((/** @type {any} */ entry) => entry.name), ['photo.png', 'first.txt'], 'folder, newest name first');
      equal([logs[0].metadata.size, logs[0].metadata.mimetype], [4, 'image/png'], 'file metadata');
      equal(ok(await notes.list('logs', { search: 'fir' }), 'search').length, 1, 'search');
      equal(ok(await notes.list('logs', { limit: 1, offset: 1 }), 'page').map((/** @type {any} */ e) => e.name), ['photo.png'], 'page');

      equal(await downloadText(admin, 'caches', 'logs/first.txt'), 'found it', 'download');
      equal(ok(await notes.exists('logs/first.txt'), 'exists'), true, 'exists');

      const removed = ok(await notes.remove(['logs/first.txt', 'logs/never.txt']), 'remove');
      equal(removed.map((/** @type {any} */ entry) => entry.name), ['logs/first.txt'], 'removed');
      refused(await notes.download('logs/first.txt'), '404', 'Object not found', 'download after remove');
      equal((await notes.exists('logs/first.txt')).data, false, 'gone');
    },
  },
  {
    name: 'an existing object is replaced only with upsert or update',
    policies: [],
    async run({ admin }) {
      await createBucket(admin, 'caches');
      const bucket = admin.storage.from('caches');
      ok(await bucket.upload('a.txt', 'one', { contentType: 'text/plain' }), 'first upload');
      refused(await bucket.upload('a.txt', 'two', { contentType: 'text/plain' }), '409', 'The resource already exists', 'duplicate');
      ok(await bucket.upload('a.txt', 'two', { contentType: 'text/plain', upsert: true }), 'upsert');
      equal(await downloadText(admin, 'caches', 'a.txt'), 'two', 'after upsert');
      ok(await bucket.update('a.txt', new Blob(['three'], { type: 'text/plain' })), 'update');
      equal(await downloadText(admin, 'caches', 'a.txt'), 'three', 'after update');
    },
  },
  {
    name: 'move and copy',
    policies: [],
    async run({ admin }) {
      await createBucket(admin, 'caches');
      await createBucket(admin, 'archive');
      const bucket = admin.storage.from('caches');
      ok(await bucket.upload('a.txt', 'moving', { contentType: 'text/plain' }), 'upload');
      equal(ok(await bucket.move('a.txt', 'b.txt'), 'move'), { message: 'Successfully moved' }, 'move');
      refused(await bucket.download('a.txt'), '404', 'Object not found', 'moved away');
      equal(ok(await bucket.copy('b.txt', 'c.txt', { destinationBucket: 'archive' }), 'copy'), { path: 'archive/c.txt' }, 'copy');
      equal(await downloadText(admin, 'archive', 'c.txt'), 'moving', 'copied bytes');
      refused(await bucket.copy('b.txt', 'b.txt'), '409', 'The resource already exists', 'copy onto itself');
    },
  },
  {
    name: 'a public bucket serves its public URL to anyone, and nothing else',
    policies: [],
    async run({ admin, anon }) {
      await createBucket(admin, 'teasers', { public: true });
      await createBucket(admin, 'private');
      ok(await admin.storage.from('teasers').upload('box.txt', 'the container', { contentType: 'text/plain' }), 'upload');
      ok(await admin.storage.from('private').upload('box.txt', 'hidden', { contentType: 'text/plain' }), 'upload private');

      const { publicUrl } = anon.storage.from('teasers').getPublicUrl('box.txt').data;
      const response = await fetch(publicUrl);
      equal([response.status, await response.text()], [200, 'the container'], 'public URL');
      equal(response.headers.get('content-type'), 'text/plain', 'public URL type');

      const hidden = await fetch(anon.storage.from('private').getPublicUrl('box.txt').data.publicUrl);
      equal([hidden.status, (await hidden.json()).statusCode], [400, '404'], 'a private bucket has no public URL');

      refused(await anon.storage.from('teasers').download('box.txt'), '404', 'Object not found', 'anon API download');
      equal(ok(await anon.storage.from('teasers').list(), 'anon list'), [], 'anon list');
    },
  },
  {
    name: 'cacheControl is the max-age the object is served with',
    policies: [],
    async run({ admin, anon }) {
      await createBucket(admin, 'teasers', { public: true });
      const bucket = admin.storage.from('teasers');
      // A raw body sends it as the request's Cache-Control header, a Blob as the form's cacheControl field.
      ok(await bucket.upload('raw.txt', 'raw', { contentType: 'text/plain', cacheControl: '60' }), 'upload raw');
      ok(await bucket.upload('form.png', new Blob(['png'], { type: 'image/png' }), { cacheControl: '60' }), 'upload blob');
      ok(await bucket.upload('default.txt', 'default', { contentType: 'text/plain' }), 'upload without cacheControl');
      ok(await bucket.upload('replaced.txt', 'one', { contentType: 'text/plain' }), 'upload to replace');
      ok(await bucket.update('replaced.txt', new Blob(['two'], { type: 'text/plain' }), { cacheControl: '120' }), 'update');
      for (const [path, expected] of [
        ['raw.txt', 'max-age=60'],
        ['form.png', 'max-age=60'],
        ['default.txt', 'max-age=3600'],
        ['replaced.txt', 'max-age=120'],
      ]) {
        const response = await fetch(anon.storage.from('teasers').getPublicUrl(path).data.publicUrl);
        await response.arrayBuffer();
        equal([response.status, response.headers.get('cache-control')], [200, expected], `${path} cache-control`);
      }
    },
  },
  {
    name: 'a signed URL serves its object until it expires',
    policies: [],
    async run({ admin, anon, sleep }) {
      await createBucket(admin, 'private');
      const bucket = admin.storage.from('private');
      ok(await bucket.upload('folder/log.txt', 'signed', { contentType: 'text/plain' }), 'upload');
      // Five seconds, so the first fetch comes within them however busy the machine; the wait below lasts until the
      // URL's own expiry has passed, not for a fixed time.
      const { signedUrl } = ok(await bucket.createSignedUrl('folder/log.txt', 5), 'sign');
      const fresh = await fetch(signedUrl);
      equal([fresh.status, await fresh.text()], [200, 'signed'], 'signed URL');

      const many = ok(await bucket.createSignedUrls(['folder/log.txt', 'missing.txt'], 60), 'sign many');
      equal(many.map((/** @type {any} */ entry) => [entry.path, entry.error === null]), [['folder/log.txt', true], ['missing.txt', false]], 'sign many');
      equal((await fetch(many[0].signedUrl)).status, 200, 'one of many');

      refused(await anon.storage.from('private').createSignedUrl('folder/log.txt', 60), '404', 'Object not found', 'anon may not sign');

      await sleep(Math.max(0, tokenExpiry(signedUrl) * 1000 - Date.now()) + 100);
      const expired = await fetch(signedUrl);
      const body = await expired.json();
      equal([expired.status, body.statusCode, body.message], [400, '400', '"exp" claim timestamp check failed'], 'expired');
      const tampered = await fetch(signedUrl.replace('token=', 'token=x'));
      equal(tampered.status, 400, 'tampered');
    },
  },
  {
    name: 'without policies anon and signed-in users are refused',
    policies: [],
    async run({ admin, anon, user }) {
      await createBucket(admin, 'caches', { public: true });
      ok(await admin.storage.from('caches').upload('a.txt', 'a', { contentType: 'text/plain' }), 'upload');
      for (const [who, client] of /** @type {[string, StorageHost][]} */ ([['anon', anon], ['user', user]])) {
        const bucket = client.storage.from('caches');
        refused(await bucket.upload('mine.txt', 'x', { contentType: 'text/plain' }), '403', RLS_MESSAGE, `${who} upload`);
        refused(await bucket.download('a.txt'), '404', 'Object not found', `${who} download`);
        equal(ok(await bucket.list(), `${who} list`), [], `${who} list`);
        equal(ok(await bucket.remove(['a.txt']), `${who} remove`), [], `${who} remove`);
        refused(await bucket.move('a.txt', 'b.txt'), '404', 'Object not found', `${who} move`);
        equal(ok(await client.storage.listBuckets(), `${who} listBuckets`), [], `${who} listBuckets`);
        refused(await client.storage.createBucket(`${who}-bucket`), '403', RLS_MESSAGE, `${who} createBucket`);
        refused(await client.storage.deleteBucket('caches'), '404', 'Bucket not found', `${who} deleteBucket`);
      }
      equal(await downloadText(admin, 'caches', 'a.txt'), 'a', 'still there');
    },
  },
  {
    name: 'policies grant one operation on one bucket to one role',
    policies: ['photos:select:anon', 'photos:insert:authenticated', 'photos:select:authenticated', 'drop:insert:anon'],
    async run({ admin, anon, user }) {
      await createBucket(admin, 'photos');
      await createBucket(admin, 'drop');
      ok(await user.storage.from('photos').upload('cache.png', new Blob(['png'], { type: 'image/png' })), 'user upload');
      refused(await anon.storage.from('photos').upload('anon.png', 'x', { contentType: 'image/png' }), '403', RLS_MESSAGE, 'anon upload');
      equal(ok(await anon.storage.from('photos').list(), 'anon list').map((/** @type {any} */ e) => e.name), ['cache.png'], 'anon list');
      equal(await downloadText(anon, 'photos', 'cache.png'), 'png', 'anon download');
      refused(await user.storage.from('photos').upload('cache.png', 'again', { upsert: true }), '403', RLS_MESSAGE, 'replace needs update');

      // A signed upload URL: made by a caller who may insert, used without further credentials.
      const signed = ok(await anon.storage.from('drop').createSignedUploadUrl('inbox/note.txt'), 'sign upload');
      equal(signed.path, 'inbox/note.txt', 'signed upload path');
      const put = ok(await anon.storage.from('drop').uploadToSignedUrl('inbox/note.txt', signed.token, 'dropped'), 'upload to signed URL');
      equal(put.fullPath, 'drop/inbox/note.txt', 'signed upload result');
      equal(await downloadText(admin, 'drop', 'inbox/note.txt'), 'dropped', 'signed upload bytes');
      refused(await anon.storage.from('drop').download('inbox/note.txt'), '404', 'Object not found', 'insert is not select');
    },
  },
  {
    name: 'buckets, and their size and type limits; object names',
    policies: [],
    async run({ admin }) {
      await createBucket(admin, 'small', { public: false, fileSizeLimit: 10, allowedMimeTypes: ['text/plain', 'image/*'] });
      const bucket = admin.storage.from('small');
      refused(await bucket.upload('big.txt', 'x'.repeat(11), { contentType: 'text/plain' }), '413', 'The object exceeded the maximum allowed size', 'too large');
      refused(await bucket.upload('big.png', new Blob([new Uint8Array(11)], { type: 'image/png' })), '413', 'The object exceeded the maximum allowed size', 'too large form');
      refused(await bucket.upload('doc.pdf', '%PDF', { contentType: 'application/pdf' }), '415', 'mime type application/pdf is not supported', 'wrong type');
      refused(await bucket.upload('%2e%2e%2fescape.txt', 'x', { contentType: 'text/plain' }), '400', 'Invalid key: ../escape.txt', 'traversal');
      // URLs drop a raw tab; an encoded one reaches the server.
      refused(await bucket.upload('tab%09here.txt', 'x', { contentType: 'text/plain' }), '400', 'Invalid key: tab\there.txt', 'control character');
      ok(await bucket.upload('ok.png', new Blob([new Uint8Array(10)], { type: 'image/png' })), 'at the limit');
      equal(ok(await bucket.list(), 'list').map((/** @type {any} */ e) => e.name), ['ok.png'], 'only the good upload');
      const info = ok(await admin.storage.getBucket('small'), 'getBucket');
      equal([info.file_size_limit, info.allowed_mime_types, info.public], [10, ['text/plain', 'image/*'], false], 'bucket');
      equal(
        ok(await admin.storage.updateBucket('small', { public: true, fileSizeLimit: 20, allowedMimeTypes: ['text/plain'] }), 'update'),
        { message: 'Successfully updated' },
        'updateBucket',
      );
      ok(await bucket.upload('now-fits.txt', 'x'.repeat(15), { contentType: 'text/plain' }), 'under the raised limit');
      refused(await bucket.upload('no-more.png', new Blob(['png'], { type: 'image/png' })), '415', 'mime type image/png is not supported', 'type dropped');
      await createBucket(admin, 'smaller');
      const listed = ok(await admin.storage.listBuckets({ search: 'small', sortColumn: 'name', sortOrder: 'desc', limit: 5 }), 'listBuckets');
      equal(listed.map((/** @type {any} */ b) => [b.name, b.public]), [['smaller', false], ['small', true]], 'listBuckets');
      refused(await admin.storage.deleteBucket('small'), '409', 'The bucket you tried to delete is not empty', 'delete non-empty');
      equal(ok(await admin.storage.emptyBucket('small'), 'empty'), { message: 'Successfully emptied' }, 'empty');
      equal(ok(await admin.storage.deleteBucket('small'), 'delete'), { message: 'Successfully deleted' }, 'delete');
    },
  },
];
