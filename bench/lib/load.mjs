// @ts-check
// Emulator throughput on loopback with autocannon: reads of 100-entry pages and single-row inserts, each for a
// bounded time, with the latency percentiles autocannon records.
import autocannon from 'autocannon';
import { makeEntries } from './entries.mjs';

/** Concurrent connections (autocannon's default): a busy page's worth of visitors, not a flood. */
export const CONNECTIONS = 10;

// autocannon ships no type declarations: its options and result are described in its README.
/** @typedef {Record<string, any>} AutocannonOptions */
/** @typedef {any} AutocannonResult */

/**
 * @param {AutocannonOptions} options
 * @returns {Promise<AutocannonResult>}
 */
function run(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (/** @type {Error | null} */ error, /** @type {AutocannonResult} */ result) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * @param {string} name
 * @param {AutocannonResult} result
 */
function summarizeLoad(name, result) {
  const failed = result.non2xx + result.errors + result.timeouts;
  return {
    name,
    durationSeconds: result.duration,
    connections: result.connections,
    requests: result.requests.total,
    requestsPerSecond: result.requests.total / result.duration,
    requestsPerSecondStats: { mean: result.requests.average, min: result.requests.min, max: result.requests.max },
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    bytesPerSecond: result.throughput.average,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    // Throughput that includes failures is not throughput: the target check requires none.
    valid: failed === 0 && result.requests.total > 0,
  };
}

/**
 * @param {{ url: string, anonKey: string }} backend
 * @param {number} seconds
 */
export async function measureEmulatorLoad(backend, seconds) {
  const auth = { apikey: backend.anonKey, authorization: `Bearer ${backend.anonKey}` };
  const reads = await run({
    url: `${backend.url}/rest/v1/geocache_logs?select=*&order=created_at.desc&limit=100`,
    headers: { ...auth, accept: 'application/json' },
    connections: CONNECTIONS,
    duration: seconds,
  });
  // A realistic entry (about 20 + 120 characters, mixed scripts), as the page sends it.
  const [{ name, message }] = makeEntries(7, 8);
  const inserts = await run({
    url: `${backend.url}/rest/v1/geocache_logs`,
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', prefer: 'return=minimal' },
    body: JSON.stringify({ name, message }),
    connections: CONNECTIONS,
    duration: seconds,
  });
  return { reads: summarizeLoad('reads of 100 entries', reads), inserts: summarizeLoad('inserts', inserts) };
}
