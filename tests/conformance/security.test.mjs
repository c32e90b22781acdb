// @ts-check
// What keeps the emulator safe beyond a trusted loopback, seen from Node: its own keys per data directory, the
// emulator endpoints' key in a header only, and a refused oversized body that the client sees as a 413 (not a
// reset) while CORS still lets a page on another localhost port call the APIs.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { JWT_SECRET_VARIABLE, startEmulator } from '../../scripts/lib/emulator.mjs';
import { TABLE, startBackend } from './support.mjs';

const MIB = 1024 * 1024;

test('a data directory keeps its keys across restarts, readable by its owner only', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'emulator-keys-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const db = path.join(dir, 'emulator.sqlite3');
  const keysOf = async () => {
    const emulator = await startEmulator({ db, env: { [JWT_SECRET_VARIABLE]: undefined } });
    await emulator.stop();
    const { anonKey, serviceRoleKey, publishableKey, secretKey } = emulator;
    return { anonKey, serviceRoleKey, publishableKey, secretKey };
  };
  const first = await keysOf();
  assert.deepEqual(await keysOf(), first);
  for (const file of ['jwt-secret', 'emulator.sqlite3']) {
    assert.equal((await stat(path.join(dir, file))).mode & 0o777, 0o600, file);
  }
});

test('the emulator endpoints take the key in a header, never in the URL', async (t) => {
  const { emulator } = await startBackend(t);
  for (const route of ['/emulator/v1/sms', '/emulator/v1/faults']) {
    const inUrl = await fetch(`${emulator.url}${route}?apikey=${emulator.secretKey}`);
    assert.equal(inUrl.status, 401, route);
    const body = await inUrl.json();
    assert.equal(body.message, 'No API key found in request');
    assert.match(body.hint, /header only/);
    const inHeader = await fetch(`${emulator.url}${route}`, { headers: { apikey: emulator.secretKey } });
    assert.equal(inHeader.status, 200, route);
  }
});

test("Node's fetch sending 64 MiB gets the 413 with its JSON error, not a reset", async (t) => {
  const { emulator } = await startBackend(t);
  const response = await fetch(`${emulator.url}/rest/v1/${TABLE}`, {
    method: 'POST',
    headers: { apikey: emulator.anonKey, 'content-type': 'application/json' },
    body: new Uint8Array(64 * MIB).fill(0x20),
  });
  assert.equal(response.status, 413);
  assert.deepEqual(await response.json(), { message: 'Request size limit exceeded' });
  // The emulator is still there for the next request.
  const after = await fetch(`${emulator.url}/rest/v1/${TABLE}?select=id`, { headers: { apikey: emulator.anonKey } });
  assert.equal(after.status, 200);
});

test('CORS still lets a page on another localhost port call the APIs with the key it was given', async (t) => {
  const { emulator } = await startBackend(t);
  const origin = 'http://localhost:5173';
  const preflight = await fetch(`${emulator.url}/rest/v1/${TABLE}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'apikey' },
  });
  assert.equal(preflight.status, 200);
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /apikey/);
  const read = await fetch(`${emulator.url}/rest/v1/${TABLE}?select=id`, { headers: { origin, apikey: emulator.anonKey } });
  assert.equal(read.status, 200);
  assert.equal(read.headers.get('access-control-allow-origin'), '*');
});
