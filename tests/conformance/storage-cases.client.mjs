// @ts-check
// Storage cases run side by side: @supabase/supabase-js's storage client in Node and this package's `client.storage`
// in Chromium (wasm/pkg), each against the same emulator, must answer alike. A case's `run` is sent to the page as
// source text, so it uses only its arguments: `storage` (the client's `client.storage`), `bucket` (a fresh private
// bucket holding `a.txt` = "found it"), `publicBucket` (a fresh public bucket holding the same), and `sleep`. It
// returns plain data without what differs from run to run (ids, tokens, timestamps).

/** @typedef {'service' | 'anon' | 'authenticated'} Role */
/**
 * @typedef {object} CaseArgs
 * @property {any} storage
 * @property {string} bucket
 * @property {string} publicBucket
 * @property {(ms: number) => Promise<void>} sleep
 */
/** @typedef {{ name: string, role: Role, run: (args: CaseArgs) => Promise<unknown>, expected: unknown }} StorageCase */

/** @type {StorageCase[]} */
export const storageCases = [
  {
    name: 'upload, list, download and remove',
    role: 'service',
    async run({ storage, bucket }) {
      const files = storage.from(bucket);
      const uploaded = await files.upload('/teaser//note.txt', 'TFTC', { contentType: 'text/plain' });
      const blob = await files.upload('teaser/box.svg', new Blob(['<svg/>'], { type: 'image/svg+xml' }), { upsert: true });
      const listed = await files.list('teaser', { sortBy: { column: 'name', order: 'desc' } });
      const downloaded = await files.download('teaser/note.txt');
      const removed = await files.remove(['teaser/note.txt']);
      const after = await files.list('teaser');
      return {
        uploaded: { path: uploaded.data.path, fullPath: uploaded.data.fullPath, hasId: typeof uploaded.data.id === 'string' },
        blob: blob.data.path,
        listed: listed.data.map((/** @type {any} */ file) => [file.name, file.metadata.size, file.metadata.mimetype]),
        downloaded: [downloaded.data instanceof Blob, await downloaded.data.text()],
        removed: removed.data.map((/** @type {any} */ file) => file.name),
        after: after.data.map((/** @type {any} */ file) => file.name),
        errors: [uploaded, blob, listed, downloaded, removed, after].map((result) => result.error),
      };
    },
    expected: {
      uploaded: { path: 'teaser/note.txt', fullPath: 'BUCKET/teaser/note.txt', hasId: true },
      blob: 'teaser/box.svg',
      listed: [['note.txt', 4, 'text/plain'], ['box.svg', 6, 'image/svg+xml']],
      downloaded: [true, 'TFTC'],
      removed: ['teaser/note.txt'],
      after: ['box.svg'],
      errors: [null, null, null, null, null, null],
    },
  },
  {
    name: 'a duplicate upload is refused unless upserted',
    role: 'service',
    async run({ storage, bucket }) {
      const files = storage.from(bucket);
      const refused = await files.upload('a.txt', 'again');
      const upserted = await files.upload('a.txt', 'again', { upsert: true });
      const { error } = refused;
      return {
        error: [error.name, error.status, error.statusCode, error.message, refused.data],
        upserted: [upserted.error, await (await files.download('a.txt')).data.text()],
      };
    },
    expected: {
      error: ['StorageApiError', 400, '409', 'The resource already exists', null],
      upserted: [null, 'again'],
    },
  },
  {
    name: 'a public URL serves a public bucket to anyone, not a private one',
    role: 'anon',
    async run({ storage, bucket, publicBucket }) {
      const open = storage.from(publicBucket).getPublicUrl('a.txt').data.publicUrl;
      const closed = storage.from(bucket).getPublicUrl('a.txt').data.publicUrl;
      const download = storage.from(publicBucket).getPublicUrl('a.txt', { download: 'box.txt' }).data.publicUrl;
      const read = await fetch(open);
      return {
        open: [open.endsWith(`/storage/v1/object/public/${publicBucket}/a.txt`), read.status, await read.text()],
        closed: (await fetch(closed)).status,
        download: download.endsWith('a.txt?download=box.txt'),
      };
    },
    expected: { open: [true, 200, 'found it'], closed: 400, download: true },
  },
  {
    name: 'a signed URL reads until it expires',
    role: 'service',
    async run({ storage, bucket, sleep }) {
      const files = storage.from(bucket);
      const lasting = await files.createSignedUrl('a.txt', 60);
      const brief = await files.createSignedUrl('a.txt', 1, { download: true });
      const many = await files.createSignedUrls(['a.txt', 'missing.txt'], 60);
      const read = await fetch(lasting.data.signedUrl);
      await sleep(2100);
      const expired = await fetch(brief.data.signedUrl);
      return {
        read: [read.status, await read.text()],
        download: brief.data.signedUrl.endsWith('&download='),
        expired: [expired.status, (await expired.json()).statusCode],
        many: many.data.map((/** @type {any} */ item) => [item.path, item.error, typeof item.signedUrl]),
      };
    },
    expected: {
      read: [200, 'found it'],
      download: true,
      expired: [400, '400'],
      many: [['a.txt', null, 'string'], ['missing.txt', 'Either the object does not exist or you do not have access to it', 'object']],
    },
  },
  {
    name: 'anon is refused without a policy',
    role: 'anon',
    async run({ storage, bucket }) {
      const files = storage.from(bucket);
      const upload = await files.upload('b.txt', 'x');
      const list = await files.list();
      const download = await files.download('a.txt');
      const bucketCreated = await storage.createBucket('not-allowed');
      const brief = (/** @type {any} */ result) =>
        result.error ? [result.error.name, result.error.status, result.error.statusCode, result.error.message] : result.data;
      return { upload: brief(upload), list: brief(list), download: brief(download), createBucket: brief(bucketCreated) };
    },
    expected: {
      upload: ['StorageApiError', 400, '403', 'new row violates row-level security policy'],
      list: [],
      download: ['StorageApiError', 400, '404', 'Object not found'],
      createBucket: ['StorageApiError', 400, '403', 'new row violates row-level security policy'],
    },
  },
  {
    name: 'a signed-in user is refused without a policy',
    role: 'authenticated',
    async run({ storage, bucket }) {
      const upload = await storage.from(bucket).upload('b.txt', 'x');
      const list = await storage.from(bucket).list();
      return {
        upload: [upload.error.name, upload.error.statusCode, upload.error.message],
        list: list.data,
      };
    },
    expected: { upload: ['StorageApiError', '403', 'new row violates row-level security policy'], list: [] },
  },
];
