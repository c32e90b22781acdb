// @ts-check
// A production build served as a static host serves it: every text asset and the wasm compressed (brotli when the
// browser accepts it, else gzip), with an ETag on every file and the caching headers of one of HOST_HEADERS: by
// default hashed files under assets/ cached for a year and everything else (index.html, a service worker script)
// revalidated on each visit, as docs/deploying.md advises; or the defaults of hosts owners use, which do not tell
// hashed files apart. The mobile profile measures `vite preview` (npm run preview) besides.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { LOOPBACK } from '../../scripts/lib/ports.mjs';

/** @type {Record<string, string>} */
const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

/** Extensions a static host compresses (images are compressed already). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.json', '.webmanifest', '.svg', '.txt', '.map']);

/** @param {string} filePath */
export const contentTypeFor = (filePath) => CONTENT_TYPES[path.extname(filePath)] ?? 'application/octet-stream';

/** @param {string} filePath */
export const isCompressible = (filePath) => COMPRESSIBLE.has(path.extname(filePath));

/**
 * The encoding to send for an Accept-Encoding header: brotli first, as hosts prefer it, then gzip; q=0 refuses one.
 * @param {string | undefined} acceptEncoding
 * @returns {'br' | 'gzip' | null}
 */
export function chooseEncoding(acceptEncoding) {
  /** @type {Map<string, number>} */
  const accepted = new Map();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const wants = (/** @type {string} */ name) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (wants('br')) return 'br';
  if (wants('gzip')) return 'gzip';
  return null;
}

/**
 * The caching headers a host sends, by name: the one docs/deploying.md advises, and two hosts' defaults.
 * @typedef {'advised' | 'revalidate' | 'ten-minutes'} HostHeaders
 */

/**
 * Each header set's Cache-Control for a path, and how the report describes it.
 * @type {Readonly<Record<HostHeaders, { describe: string, cacheControl: (urlPath: string) => string }>>}
 */
export const HOST_HEADERS = Object.freeze({
  // Hashed build output never changes under its name; anything else must be revalidated so a new build shows at once.
  advised: {
    describe: 'assets/ cached for a year, the rest revalidated',
    cacheControl: (urlPath) => (urlPath.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache'),
  },
  // Netlify's default: every file, hashed or not, revalidated on every use.
  revalidate: {
    describe: 'every file revalidated (`public, max-age=0, must-revalidate`, as Netlify)',
    cacheControl: () => 'public, max-age=0, must-revalidate',
  },
  // GitHub Pages' default: every file fresh for ten minutes, then revalidated.
  'ten-minutes': {
    describe: 'every file cached for ten minutes (`max-age=600`, as GitHub Pages)',
    cacheControl: () => 'max-age=600',
  },
});

/**
 * @param {string} urlPath
 * @param {HostHeaders} [headers]
 */
export function cacheControlFor(urlPath, headers = 'advised') {
  return HOST_HEADERS[headers].cacheControl(urlPath);
}

/**
 * @typedef {object} StaticFile
 * @property {string} urlPath   e.g. /assets/index-abc.js
 * @property {Buffer} body
 * @property {Buffer | null} gzip
 * @property {Buffer | null} brotli
 * @property {string} etag
 */

/**
 * Every file of a build, compressed once up front (gzip -9, brotli 11: a host's precompressed assets).
 * @param {string} root
 * @returns {Promise<Map<string, StaticFile>>}
 */
export async function loadBuild(root) {
  /** @type {Map<string, StaticFile>} */
  const files = new Map();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const urlPath = `/${path.relative(root, full).split(path.sep).join('/')}`;
    const body = await readFile(full);
    const compress = isCompressible(full);
    files.set(urlPath, {
      urlPath,
      body,
      gzip: compress ? zlib.gzipSync(body, { level: 9 }) : null,
      brotli: compress
        ? zlib.brotliCompressSync(body, {
            params: {
              [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
            },
          })
        : null,
      etag: `"${createHash('sha1').update(body).digest('base64url').slice(0, 16)}"`,
    });
  }
  return files;
}

/**
 * @typedef {object} RunningStaticServer
 * @property {string} url    e.g. http://127.0.0.1:41234/
 * @property {Map<string, StaticFile>} files
 * @property {() => Promise<void>} stop
 */

/**
 * Serves `root` on a free loopback port. "/" is index.html; an unknown path without an extension is index.html too
 * (a single-page site); anything else unknown is 404.
 * @param {string} root
 * @param {{ headers?: HostHeaders, files?: Map<string, StaticFile> }} [options]  the caching headers; a build loaded already
 * @returns {Promise<RunningStaticServer>}
 */
export async function startStaticServer(root, { headers: hostHeaders = 'advised', files: loaded } = {}) {
  const files = loaded ?? (await loadBuild(root));
  const server = http.createServer((request, response) => {
    const urlPath = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const file =
      files.get(urlPath) ??
      files.get(path.posix.join(urlPath, 'index.html')) ??
      (path.posix.extname(urlPath) === '' ? files.get('/index.html') : undefined);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    if (!file) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache' }).end('not found\n');
      return;
    }
    /** @type {Record<string, string>} */
    const headers = {
      'Content-Type': contentTypeFor(file.urlPath),
      'Cache-Control': cacheControlFor(file.urlPath, hostHeaders),
      ETag: file.etag,
      Vary: 'Accept-Encoding',
    };
    if (request.headers['if-none-match'] === file.etag) {
      response.writeHead(304, headers).end();
      return;
    }
    const encoding = chooseEncoding(request.headers['accept-encoding']);
    const body = encoding === 'br' ? file.brotli : encoding === 'gzip' ? file.gzip : null;
    if (body !== null && encoding !== null) headers['Content-Encoding'] = encoding;
    const sent = body ?? file.body;
    headers['Content-Length'] = String(sent.length);
    response.writeHead(200, headers);
    response.end(request.method === 'HEAD' ? undefined : sent);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve(undefined));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${LOOPBACK}:${address.port}/`,
    files,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
