import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isRestRequest, QUIET_MS, requestBound, RestRequestLog } from './rest-requests.mjs';

const request = (/** @type {string} */ url, method = 'GET') => ({ url: () => url, method: () => method });

test('a keyset read of N entries may cost one request per page of 1,000 and the page that ends it', () => {
  assert.equal(requestBound(100_000), 102);
  assert.equal(requestBound(100_001), 103);
  assert.equal(requestBound(100), 3);
  assert.equal(requestBound(0), 2);
  assert.equal(requestBound(10, 7), 4);
});

test('only the REST API counts, and preflights do not', () => {
  assert.equal(isRestRequest('http://127.0.0.1:5/rest/v1/geocache_logs?select=*'), true);
  assert.equal(isRestRequest('http://127.0.0.1:5/assets/index.js'), false);
  assert.equal(isRestRequest('not a url'), false);
  const log = new RestRequestLog(() => 0);
  log.onRequest(request('http://h/rest/v1/geocache_logs', 'OPTIONS'));
  log.onRequest(request('http://h/assets/x.wasm'));
  log.onRequest(request('http://h/rest/v1/geocache_logs'));
  assert.equal(log.started, 1);
});

test('requests are counted until the load is over, failures included', () => {
  let now = 0;
  const log = new RestRequestLog(() => now);
  const first = request('http://h/rest/v1/geocache_logs?limit=1000');
  const second = request('http://h/rest/v1/geocache_logs?limit=1000&or=(x)');
  log.onRequest(first);
  log.onFinished(first);
  log.onRequest(second);
  log.onFailed(second);
  assert.deepEqual([log.started, log.failed, log.inFlight.size], [2, 1, 0]);
  log.stop();
  log.onRequest(request('http://h/rest/v1/geocache_logs', 'POST'));
  assert.equal(log.started, 2);
});

test('a load is over without the oldest entry only after a card, with nothing in flight for a quiet while', () => {
  let now = 0;
  const log = new RestRequestLog(() => now);
  const painted = { firstCardPainted: 300 };
  assert.equal(log.quietAfterFirstCard(painted), false); // no request yet
  const read = request('http://h/rest/v1/geocache_logs');
  log.onRequest(read);
  now = 10_000;
  assert.equal(log.quietAfterFirstCard(painted), false); // still in flight
  log.onFinished(read);
  now += QUIET_MS - 1;
  assert.equal(log.quietAfterFirstCard(painted), false);
  now += 1;
  assert.equal(log.quietAfterFirstCard(painted), true);
  assert.equal(log.quietAfterFirstCard({ firstCardPainted: null }), false);
});
