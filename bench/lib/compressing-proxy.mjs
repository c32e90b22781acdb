// @ts-check
// The emulator behind a compressing proxy, as a hosted project's API sits behind a CDN that compresses its JSON
// (brotli or gzip, compressed on the fly). The emulator answers uncompressed; on a 1.6 Mbit/s link a page of 1,000
// entries would otherwise take more than a second that no hosted visitor waits for.
import http from 'node:http';
import zlib from 'node:zlib';
import { LOOPBACK } from '../../scripts/lib/ports.mjs';
import { chooseEncoding } from './static-server.mjs';

/** Headers that describe one hop's connection or the body as it was sent, not the resource. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'host']);

/** Dynamic compression as CDNs do it: fast settings, not the maximum. */
const BROTLI_QUALITY = 5;
const GZIP_LEVEL = 6;
/** Bodies shorter than this go as they are (as CDNs do: compression would not pay). */
const MIN_COMPRESSED_BYTES = 1024;

/**
 * @param {Buffer} body
 * @param {'br' | 'gzip'} encoding
 */
export function compressForWire(body, encoding) {
  return encoding === 'br'
    ? zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : zlib.gzipSync(body, { level: GZIP_LEVEL });
}

/**
 * @param {string | undefined} contentType
 * @param {number} length
 */
export const worthCompressing = (contentType, length) => length >= MIN_COMPRESSED_BYTES && /json|text|javascript/.test(contentType ?? '');

/**
 * @typedef {object} RunningProxy
 * @property {string} url     e.g. http://127.0.0.1:41234 (no trailing slash, as the emulator's own URL)
 * @property {() => Promise<void>} stop
 */

/**
 * Forwards every request to `upstream` and compresses what comes back when the client accepts it.
 * @param {string} upstream  e.g. http://127.0.0.1:54321
 * @returns {Promise<RunningProxy>}
 */
export async function startCompressingProxy(upstream) {
  const target = new URL(upstream);
  const server = http.createServer((request, response) => {
    /** @type {Buffer[]} */
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_HEADERS.has(name)));
      // The emulator must answer uncompressed, so the proxy alone decides the encoding.
      delete headers['accept-encoding'];
      const forward = http.request(
        { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: { ...headers, host: target.host, 'content-length': String(body.length) } },
        (upstreamResponse) => {
          /** @type {Buffer[]} */
          const parts = [];
          upstreamResponse.on('data', (chunk) => parts.push(chunk));
          upstreamResponse.on('end', () => {
            const answer = Buffer.concat(parts);
            /** @type {Record<string, string | string[]>} */
            const out = {};
            for (const [name, value] of Object.entries(upstreamResponse.headers)) if (value !== undefined && !HOP_HEADERS.has(name)) out[name] = value;
            const encoding = chooseEncoding(request.headers['accept-encoding']);
            const compress = encoding !== null && request.method !== 'HEAD' && worthCompressing(upstreamResponse.headers['content-type'], answer.length);
            const sent = compress && encoding !== null ? compressForWire(answer, encoding) : answer;
            if (compress && encoding !== null) {
              out['content-encoding'] = encoding;
              out.vary = [out.vary, 'Accept-Encoding'].filter(Boolean).join(', ');
            }
            out['content-length'] = String(sent.length);
            response.writeHead(upstreamResponse.statusCode ?? 502, out);
            response.end(request.method === 'HEAD' ? undefined : sent);
          });
          upstreamResponse.on('error', () => response.destroy());
        },
      );
      forward.on('error', (error) => {
        if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(`proxy: ${error.message}\n`);
      });
      forward.end(body);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve(undefined));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${LOOPBACK}:${address.port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
