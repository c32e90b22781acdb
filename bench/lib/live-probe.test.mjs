// @ts-check
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { installArrivalProbe } from './live-probe.mjs';

/** The page the probe sees: cards by name, and the mutation observer it starts. */
/** @type {{ names: string[], observed: (() => void) | undefined }} */
let page;
/** @type {Record<string, unknown>} */
let saved;
const GLOBALS = ['window', 'document', 'MutationObserver', 'requestAnimationFrame'];
const wasmInstantiate = WebAssembly.instantiate;
const wasmInstantiateStreaming = WebAssembly.instantiateStreaming;

beforeEach(() => {
  page = { names: [], observed: undefined };
  const g = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (globalThis));
  saved = Object.fromEntries(GLOBALS.map((name) => [name, g[name]]));
  g.window = {};
  g.document = {
    body: {},
    querySelectorAll: () => page.names.map((name) => ({ querySelector: () => ({ textContent: name }) })),
  };
  g.MutationObserver = class {
    /** @param {() => void} callback */
    constructor(callback) {
      page.observed = callback;
    }
    observe() {}
  };
  g.requestAnimationFrame = (/** @type {() => void} */ callback) => setTimeout(callback);
  installArrivalProbe();
});

afterEach(() => {
  const g = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (globalThis));
  for (const [name, value] of Object.entries(saved)) g[name] = value;
  WebAssembly.instantiate = wasmInstantiate;
  WebAssembly.instantiateStreaming = wasmInstantiateStreaming;
});

const probe = () => /** @type {any} */ (globalThis).window;

/** Cards `names` are shown: the observer runs, then the frame and the message after it. */
async function show(/** @type {string[]} */ names) {
  page.names = names;
  page.observed?.();
  await new Promise((resolve) => setTimeout(resolve, 5));
  await turn();
}

test('the probe stamps a watched card once it is painted, and forgets it once read', async () => {
  probe().__liveWatch('live-bench-1');
  assert.equal(probe().__livePainted('live-bench-1'), null);
  const before = performance.timeOrigin + performance.now();
  await show(['live-bench-1']);
  const at = probe().__livePainted('live-bench-1');
  assert.ok(typeof at === 'number' && at >= before, `painted at ${at}`);
  // Read once: the name is no longer kept.
  assert.equal(probe().__livePainted('live-bench-1'), null);
  await show(['live-bench-1']);
  assert.equal(probe().__livePainted('live-bench-1'), null);
});

test('the probe keeps nothing for cards it was not asked to watch', async () => {
  await show(['live-bench-1', 'live-bench-2']);
  probe().__liveWatch('live-bench-2');
  // Shown before the watch: the next mutation stamps it (a card stays while the observer runs again).
  assert.equal(probe().__livePainted('live-bench-1'), null);
  await show(['live-bench-3', 'live-bench-2']);
  assert.equal(probe().__livePainted('live-bench-3'), null);
  assert.equal(typeof probe().__livePainted('live-bench-2'), 'number');
});

test('the probe adds up the linear memory of the wasm instances the page makes', async () => {
  assert.equal(probe().__liveWasmBytes(), 0);
  // A module that exports one memory of one 64 KiB page.
  const bytes = Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x05, 0x03, 0x01, 0x00, 0x01, 0x07, 0x0a, 0x01, 0x06, 0x6d,
    0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00,
  ]);
  const { instance } = await WebAssembly.instantiate(bytes);
  assert.equal(probe().__liveWasmBytes(), 65_536);
  /** @type {WebAssembly.Memory} */ (instance.exports.memory).grow(2);
  assert.equal(probe().__liveWasmBytes(), 3 * 65_536);
  // From a compiled module, the instance itself is what resolves.
  await WebAssembly.instantiate(await WebAssembly.compile(bytes));
  assert.equal(probe().__liveWasmBytes(), 4 * 65_536);
});
