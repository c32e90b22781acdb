import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { startCompressingProxy } from './compressing-proxy.mjs';

/**
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: string }} [options]
 * @returns {Promise<{ status: number | undefined, headers: http.IncomingHttpHeaders, body: Buffer }>}
 */
const request = (url, { method = 'GET', headers = {}, body } = {}) =>
  new Promise((resolve, reject) => {
    // node:http, not fetch: fetch would decode the body and hide the encoding.
    const req = http.request(url, { method, headers }, (res) => {
      const chunks = /** @type {Buffer[]} */ ([]);
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });

test('the proxy forwards requests as they are and compresses JSON answers the client accepts compressed', async () => {
  const big = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i, name: `entry ${i}` })));
  /** @type {{ method?: string, url?: string, body: string, acceptEncoding?: string }[]} */
  const seen = [];
  const upstream = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, body, acceptEncoding: req.headers['accept-encoding'] });
      if (req.url === '/small') res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      else if (req.method === 'POST') res.writeHead(201, { 'content-type': 'application/json', 'access-control-allow-origin': '*' }).end(body);
      else res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(big);
    });
  });
  await new Promise((resolve) => upstream.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (upstream.address()).port;
  const proxy = await startCompressingProxy(`http://127.0.0.1:${port}`);
  try {
    const br = await request(`${proxy.url}/rest/v1/x?limit=5`, { headers: { 'accept-encoding': 'gzip, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(zlib.brotliDecompressSync(br.body).toString(), big);
    assert.equal(seen[0].url, '/rest/v1/x?limit=5');
    assert.equal(seen[0].acceptEncoding, undefined); // the emulator always answers uncompressed
    const gzip = await request(`${proxy.url}/list`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(zlib.gunzipSync(gzip.body).toString(), big);
    const plain = await request(`${proxy.url}/list`);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body.toString(), big);
    const small = await request(`${proxy.url}/small`, { headers: { 'accept-encoding': 'br' } });
    assert.equal(small.headers['content-encoding'], undefined);
    const posted = await request(`${proxy.url}/rest/v1/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    assert.equal(posted.status, 201);
    assert.equal(posted.headers['access-control-allow-origin'], '*');
    assert.equal(posted.body.toString(), '{"a":1}');
  } finally {
    await proxy.stop();
    await new Promise((resolve) => upstream.close(() => resolve(undefined)));
  }
});
