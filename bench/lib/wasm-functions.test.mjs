import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyseWasm, byCrate, crateOf, readableName } from './wasm-functions.mjs';

/** @param {string} text */
const name = (text) => [text.length, ...Buffer.from(text)];
/** @param {number} id @param {number[]} content */
const section = (id, content) => [id, content.length, ...content];

// A module by hand: one imported function, two defined ones (bodies of 4 and 2 bytes plus their size bytes), a
// data section, and a name section naming the import and the first body.
const MODULE = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [1, 0x60, 0, 0]), // type: () -> ()
  ...section(2, [1, ...name('env'), ...name('f'), 0x00, 0]), // import: one function
  ...section(3, [2, 0, 0]), // function: two, of type 0
  ...section(10, [2, 4, 0, 0x01, 0x01, 0x0b, 2, 0, 0x0b]), // code: (nop nop end) and (end)
  ...section(11, [1, 0, 0x41, 0, 0x0b, 3, 1, 2, 3]), // data: 3 bytes at 0
  ...section(0, [...name('name'), ...section(1, [2, 0, ...name('imp'), 1, ...name('big')])]),
]);

test('each defined function\'s body size, named from the name section, largest first', () => {
  const breakdown = analyseWasm(MODULE);
  assert.equal(breakdown.totalBytes, MODULE.length);
  assert.deepEqual(breakdown.functions, [
    { index: 1, name: 'big', size: 5 },
    { index: 2, name: 'func[2]', size: 3 },
  ]);
  assert.deepEqual(
    breakdown.sections.map((s) => s.name),
    ['type', 'import', 'function', 'code', 'data', 'custom "name"'],
  );
  assert.equal(breakdown.dataBytes, 9);
});

test('a file that is not wasm, or is cut short, is refused with a reason', () => {
  assert.throws(() => analyseWasm(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8])), /not a wasm binary/);
  assert.throws(() => analyseWasm(MODULE.subarray(0, MODULE.length - 3)), /runs past the end/);
});

test('functions are grouped by crate: the path\'s first segment, a primitive\'s trait, shims apart', () => {
  assert.equal(crateOf('serde_json::de::from_str::h0123'), 'serde_json');
  assert.equal(crateOf('<serde_json[0123456789abcdef]::de::Deserializer<R> as serde::Deserializer>::deserialize_any'), 'serde_json');
  assert.equal(crateOf('<f64 as core[c5930c85a12de822]::fmt::Display>::fmt'), 'core');
  assert.equal(crateOf('<char>::escape_debug_ext'), 'core');
  assert.equal(crateOf('<&T as core::fmt::Display>::fmt::hdc61652602e8df7e'), 'core');
  assert.equal(crateOf('createClient externref shim'), '(exports and shims)');
  assert.equal(readableName('core[c5930c85a12de822]::fmt::write'), 'core::fmt::write');
  assert.deepEqual(
    byCrate([
      { index: 0, name: 'core::a', size: 5 },
      { index: 1, name: 'geocache_core::b', size: 7 },
      { index: 2, name: 'core::c', size: 4 },
    ]),
    [
      { crate: 'core', size: 9, functions: 2 },
      { crate: 'geocache_core', size: 7, functions: 1 },
    ],
  );
});
