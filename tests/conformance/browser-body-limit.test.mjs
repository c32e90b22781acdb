// @ts-check
// Chromium sees the 413 for an oversized body. A browser writing a large upload reports a reset as a failed fetch
// (status 0), so the emulator must read the rest of the refused body behind its answer. The page comes from its
// own localhost port, as the logbook page does, so the exchange goes through CORS too.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../../scripts/lib/chromium.mjs';
import { TABLE, startBackend } from './support.mjs';

/**
 * A server for an empty page on a free port, closed when the test ends.
 * @param {import('node:test').TestContext} t
 * @returns {Promise<string>} the page's URL
 */
async function servePage(t) {
  const server = http.createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>page</title>');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  t.after(() => new Promise((resolve) => server.close(() => resolve(undefined))));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return `http://localhost:${address.port}/`;
}

test("a page's fetch sending 64 MiB gets the 413 with its JSON error", async (t) => {
  const { emulator } = await startBackend(t);
  const pageUrl = await servePage(t);
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  t.after(() => browser.close());
  const page = await browser.newPage();
  await page.goto(pageUrl);
  const answer = await page.evaluate(
    async ({ url, key }) => {
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { apikey: key, 'content-type': 'application/json' },
          body: new Uint8Array(64 * 1024 * 1024).fill(0x20),
        });
        return { status: response.status, body: await response.text() };
      } catch (error) {
        return { status: 0, body: String(error) };
      }
    },
    { url: `${emulator.url}/rest/v1/${TABLE}`, key: emulator.anonKey },
  );
  assert.equal(answer.status, 413, answer.body);
  assert.deepEqual(JSON.parse(answer.body), { message: 'Request size limit exceeded' });
});
