// @ts-check
// The Vite launcher every test and `npm start` use: a server is ready only once the Vite it started serves its port.
// The e2e projects run side by side, each picking free ports: another project's server that bound the same port a
// moment earlier answers the URL too, and must never be taken for this one.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { findFreePort, LOOPBACK } from '../../scripts/lib/ports.mjs';
import { startVite } from '../../scripts/lib/vite.mjs';

test('a port another server holds is refused, even though that server answers the URL', async () => {
  const port = await findFreePort();
  const other = http.createServer((_request, response) => response.end('another server'));
  await new Promise((resolve) => other.listen(port, LOOPBACK, () => resolve(undefined)));
  try {
    await assert.rejects(startVite({ port }), /Vite exited before it was ready/);
  } finally {
    other.close();
  }
});

test('a free port is served by the Vite it started', async () => {
  const vite = await startVite({ port: await findFreePort() });
  try {
    const page = await (await fetch(vite.url)).text();
    assert.match(page, /<html/);
  } finally {
    await vite.stop();
  }
});
