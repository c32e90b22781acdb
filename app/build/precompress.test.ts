// @vitest-environment node
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseEncoding, compress, precompress, precompressedFiles } from './precompress.ts';

describe('chooseEncoding', () => {
  it('prefers brotli, then gzip, among what the client accepts and what exists', () => {
    expect(chooseEncoding('gzip, deflate, br, zstd', ['br', 'gzip'])).toBe('br');
    expect(chooseEncoding('gzip, deflate', ['br', 'gzip'])).toBe('gzip');
    expect(chooseEncoding('br', ['gzip'])).toBeNull();
    expect(chooseEncoding('BR;q=0.5, gzip;q=1', ['br', 'gzip'])).toBe('br');
  });

  it('honours a refusal (q=0), a wildcard, and no header at all', () => {
    expect(chooseEncoding('br;q=0, gzip', ['br', 'gzip'])).toBe('gzip');
    expect(chooseEncoding('*', ['br', 'gzip'])).toBe('br');
    expect(chooseEncoding('*, br;q=0', ['br', 'gzip'])).toBe('gzip');
    expect(chooseEncoding('identity', ['br', 'gzip'])).toBeNull();
    expect(chooseEncoding(undefined, ['br', 'gzip'])).toBeNull();
    expect(chooseEncoding('', ['br', 'gzip'])).toBeNull();
  });
});

describe('precompress', () => {
  let dir = '';
  let url = '';
  let close = () => undefined as unknown;
  const wasm = new Uint8Array(4096).map((_, index) => index % 7);
  const files = { 'assets/client-abc.wasm': wasm, 'index.html': new TextEncoder().encode('<!doctype html><p>page</p>'.repeat(20)) };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'geocache-precompress-'));
    await writeFile(path.join(dir, 'README.txt'), 'not compressed');
    const plugin = precompress();
    (plugin.configResolved as (config: { root: string; build: { outDir: string } }) => void)({ root: dir, build: { outDir: '.' } });
    const bundle = Object.fromEntries(
      Object.entries(files).map(([fileName, source]) => [fileName, { type: 'asset', fileName, source }]),
    );
    bundle['notes.txt'] = { type: 'asset', fileName: 'notes.txt', source: new TextEncoder().encode('plain') };
    await mkdir(path.join(dir, 'assets'));
    for (const [fileName, source] of Object.entries(files)) await writeFile(path.join(dir, fileName), source);
    await (plugin.writeBundle as (options: unknown, bundle: unknown) => Promise<void>)({}, bundle);

    const handler = precompressedFiles(dir, '/');
    const server = createServer((request, response) =>
      handler(request, response, () => {
        response.statusCode = 404;
        response.end('next');
      }),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    close = () => server.close();
  });
  afterAll(async () => {
    close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a .br and a .gz copy beside each file it serves compressed, and none beside others', async () => {
    expect((await readdir(path.join(dir, 'assets'))).sort()).toEqual(['client-abc.wasm', 'client-abc.wasm.br', 'client-abc.wasm.gz']);
    const encoded = await compress(wasm);
    expect(new Uint8Array(brotliDecompressSync(encoded.br))).toEqual(wasm);
    expect(new Uint8Array(gunzipSync(encoded.gzip))).toEqual(wasm);
    expect(await readdir(dir)).not.toContain('notes.txt.gz');
  });

  it('serves the wasm as application/wasm in the encoding the request accepts', async () => {
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
    ] as const) {
      const response = await fetch(`${url}/assets/client-abc.wasm`, { headers: { 'accept-encoding': accept } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/wasm');
      expect(response.headers.get('content-encoding')).toBe(encoding);
      expect(response.headers.get('vary')).toBe('Accept-Encoding');
      expect(Number(response.headers.get('content-length'))).toBeLessThan(wasm.length);
      // fetch decodes the body as the header says.
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(wasm);
    }
  });

  it('serves index.html for / and leaves everything else to the next handler', async () => {
    const page = await fetch(`${url}/`, { headers: { 'accept-encoding': 'br' } });
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-encoding')).toBe('br');
    for (const [pathname, accept] of [
      ['/assets/client-abc.wasm', 'identity'],
      ['/notes.txt', 'br'],
      ['/assets/missing.js', 'br'],
      ['/../README.txt', 'br'],
      ['/%2e%2e/README.txt', 'br'],
    ]) {
      const response = await fetch(`${url}${pathname}`, { headers: { 'accept-encoding': accept ?? '' } });
      expect(await response.text(), pathname).toBe('next');
    }
  });
});
