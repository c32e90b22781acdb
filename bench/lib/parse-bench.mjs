// @ts-check
/* global window */
// Entry parse + validation throughput in the browser. A small server on loopback serves the harness page
// (bench/parse, built) and, at /rest/v1/geocache_logs, fixed bytes: the emulator's own keyset pages of N entries
// (1,000 rows each, the server's row cap, then the empty page that ends the listing), each served for the cursor
// that asks for it, so every variant reads all N entries in the same requests the page makes. Serving both from
// one origin keeps CORS preflights out of the timings.
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { LOOPBACK } from '../../scripts/lib/ports.mjs';
import { closeBrowser, launchBrowser } from './browser.mjs';
import { pageIndexFor } from './fixture-pages.mjs';
import { summarize } from './stats.mjs';

const MIME = /** @type {Record<string, string>} */ ({
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
});

/**
 * @param {string} root  the built harness
 * @returns {Promise<{ url: string, setPages: (pages: import('./rest.mjs').ListPage[]) => void, close: () => Promise<void> }>}
 */
export async function startFixtureServer(root) {
  /** @type {import('./rest.mjs').ListPage[]} */
  let pages = [];
  const server = http.createServer((request, response) => {
    void (async () => {
      const { pathname, searchParams } = new URL(request.url ?? '/', 'http://localhost');
      if (pathname === '/rest/v1/geocache_logs') {
        const index = pageIndexFor(searchParams, pages);
        if (index === null) {
          response.writeHead(400, { 'Content-Type': 'application/json' });
          response.end(JSON.stringify({ message: `no recorded page for ${searchParams.toString()}` }));
          return;
        }
        const page = pages[index];
        response.writeHead(200, {
          'Content-Type': 'application/json; charset=utf-8',
          ...(page.contentRange === null ? {} : { 'Content-Range': page.contentRange }),
          'Content-Length': page.body.length,
        });
        response.end(page.body);
        return;
      }
      if (pathname === '/fixture/pages') {
        // The page queries in order, for the variants that only move or parse bytes.
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify(pages.map((page) => page.query)));
        return;
      }
      const file = path.join(root, pathname === '/' ? 'index.html' : path.normalize(pathname));
      if (!file.startsWith(root)) {
        response.writeHead(403).end();
        return;
      }
      try {
        const content = await readFile(file);
        response.writeHead(200, { 'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream' });
        response.end(content);
      } catch {
        response.writeHead(404).end();
      }
    })();
  });
  await new Promise((resolve) => server.listen(0, LOOPBACK, () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${LOOPBACK}:${address.port}/`,
    setPages(newPages) {
      pages = newPages;
    },
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}

/** The variants the harness runs, in order; see bench/parse/src/main.ts. */
export const PARSE_VARIANTS = [
  'ours',
  'peer-fetch-json-zod',
  'peer-supabase-zod',
  'fetch-only',
  'memory-ours-core',
  'memory-json-zod',
  'memory-json',
];

/**
 * Measures every variant on the given lists: one fresh page per list, the variants interleaved in rounds.
 * @param {string} harnessRoot
 * @param {{ entries: number, pages: import('./rest.mjs').ListPage[] }[]} inputs
 * @param {{ quick: boolean }} options
 */
export async function measureParsing(harnessRoot, inputs, { quick }) {
  const server = await startFixtureServer(harnessRoot);
  const browser = await launchBrowser(['--js-flags=--expose-gc']);
  /** @type {Record<string, unknown>[]} */
  const results = [];
  try {
    for (const { entries, pages } of inputs) {
      server.setPages(pages);
      const bytes = pages.reduce((sum, page) => sum + page.body.length, 0);
      const page = await browser.newPage();
      try {
        /** @type {string[]} */
        const problems = [];
        page.on('pageerror', (error) => problems.push(error.message));
        await page.goto(server.url, { waitUntil: 'load' });
        await page.waitForFunction(() => 'parseBench' in window);
        const settings = quick
          ? { warmup: 1, minRounds: 5, maxRounds: 50, minMs: 3000 }
          : { warmup: 2, minRounds: 10, maxRounds: 100, minMs: 15_000 };
        /** @type {{ name: string, entries: number, timesMs: number[] }[]} */
        const measured = await page.evaluate(
          ([names, options]) => /** @type {any} */ (window).parseBench.measure(names, options),
          /** @type {const} */ ([PARSE_VARIANTS, settings]),
        );
        if (problems.length > 0) throw new Error(`the parse harness failed: ${problems.join('; ')}`);
        for (const { name, entries: produced, timesMs } of measured) {
          if (name !== 'fetch-only' && produced !== entries) {
            throw new Error(`${name} produced ${produced} entries, expected ${entries}`);
          }
          const summary = summarize(timesMs);
          const median = /** @type {number} */ (summary.median);
          results.push({
            entries,
            bytes,
            requests: pages.length,
            variant: name,
            timesMs,
            ...summary,
            entriesPerSecond: (entries / median) * 1000,
            megabytesPerSecond: bytes / 1e6 / (median / 1000),
          });
          console.log(`bench: parse ${name} @ ${entries}: ${median.toFixed(1)} ms (${timesMs.length} runs)`);
        }
      } finally {
        await page.close();
      }
    }
  } finally {
    await closeBrowser(browser);
    await server.close();
  }
  return results;
}
