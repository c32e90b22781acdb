import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { cacheControlFor, chooseEncoding, isCompressible, startStaticServer } from './static-server.mjs';

test('brotli is preferred, then gzip; q=0 refuses an encoding; nothing accepted sends the bytes as they are', () => {
  assert.equal(chooseEncoding('gzip, deflate, br, zstd'), 'br');
  assert.equal(chooseEncoding('gzip, br;q=0'), 'gzip');
  assert.equal(chooseEncoding('*'), 'br');
  assert.equal(chooseEncoding('identity'), null);
  assert.equal(chooseEncoding(undefined), null);
});

test('the wasm is compressed like the text assets; images are not', () => {
  for (const file of ['index.html', 'a.js', 'a.css', 'client.wasm', 'manifest.webmanifest']) assert.equal(isCompressible(file), true, file);
  assert.equal(isCompressible('logbook.png'), false);
});

test('hashed assets are cached for a year; the page and a service worker script are revalidated', () => {
  assert.match(cacheControlFor('/assets/index-abc.js'), /max-age=31536000, immutable/);
  assert.equal(cacheControlFor('/index.html'), 'no-cache');
  assert.equal(cacheControlFor('/sw.js'), 'no-cache');
});

test('the hosts\' defaults treat hashed assets as any other file: revalidated on every use, or fresh for ten minutes', () => {
  for (const urlPath of ['/assets/index-abc.js', '/index.html', '/service-worker.js']) {
    assert.equal(cacheControlFor(urlPath, 'revalidate'), 'public, max-age=0, must-revalidate', urlPath);
    assert.equal(cacheControlFor(urlPath, 'ten-minutes'), 'max-age=600', urlPath);
  }
});

test('the server answers with the negotiated encoding, validators and the page for "/"', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bench-static-'));
  await mkdir(path.join(root, 'assets'));
  const wasm = Buffer.concat([Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]), Buffer.alloc(4000)]);
  await writeFile(path.join(root, 'index.html'), '<!doctype html><title>x</title>');
  await writeFile(path.join(root, 'assets', 'client-abc.wasm'), wasm);
  const server = await startStaticServer(root);
  try {
    const getFrom = (/** @type {string} */ base, /** @type {string} */ urlPath, /** @type {Record<string, string>} */ headers) =>
      new Promise((resolve, reject) => {
        // node:http, not fetch: fetch would decode the body and hide the encoding.
        import('node:http').then(({ get: httpGet }) =>
          httpGet(new URL(urlPath, base), { headers }, (res) => {
            const chunks = /** @type {Buffer[]} */ ([]);
            res.on('data', (chunk) => chunks.push(chunk));
            res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
          }).on('error', reject),
        );
      });
    const get = (/** @type {string} */ urlPath, /** @type {Record<string, string>} */ headers = {}) => getFrom(server.url, urlPath, headers);
    const br = /** @type {any} */ (await get('/assets/client-abc.wasm', { 'accept-encoding': 'gzip, br' }));
    assert.equal(br.status, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['content-type'], 'application/wasm');
    assert.deepEqual(zlib.brotliDecompressSync(br.body), wasm);
    const gz = /** @type {any} */ (await get('/assets/client-abc.wasm', { 'accept-encoding': 'gzip' }));
    assert.deepEqual(zlib.gunzipSync(gz.body), wasm);
    const plain = /** @type {any} */ (await get('/assets/client-abc.wasm'));
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.body, wasm);
    const again = /** @type {any} */ (await get('/assets/client-abc.wasm', { 'if-none-match': br.headers.etag }));
    assert.equal(again.status, 304);
    const page = /** @type {any} */ (await get('/'));
    assert.equal(page.headers['cache-control'], 'no-cache');
    assert.match(page.body.toString(), /<title>x<\/title>/);
    assert.equal(/** @type {any} */ (await get('/assets/missing.js')).status, 404);
    // The same build behind a host that revalidates everything: the asset's answer says so, and its 304 too.
    const revalidating = await startStaticServer(root, { headers: 'revalidate', files: server.files });
    try {
      const asset = /** @type {any} */ (await getFrom(revalidating.url, '/assets/client-abc.wasm', {}));
      assert.equal(asset.headers['cache-control'], 'public, max-age=0, must-revalidate');
      const unchanged = /** @type {any} */ (await getFrom(revalidating.url, '/assets/client-abc.wasm', { 'if-none-match': asset.headers.etag }));
      assert.equal(unchanged.status, 304);
      assert.equal(unchanged.headers['cache-control'], 'public, max-age=0, must-revalidate');
    } finally {
      await revalidating.stop();
    }
  } finally {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  }
});
