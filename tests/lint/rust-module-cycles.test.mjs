// @ts-check
// The Rust module-graph checks (scripts/lib/rust-module-graph.mjs): the workspace's crates have no cycle between
// their files and the emulator's ground floor imports nothing above it; the checks themselves report a cycle or an
// upward import they are shown, through each kind of path, and stay quiet about what is neither (a parent's `mod`
// declaration, a child's tests reaching `super::*`, comments and strings, a service using the ground floor).
// Run with `node --test tests/lint/` from the repository root.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  describeCycle,
  describeUpwardImport,
  expandUseTree,
  findRustModuleCycles,
  findUpwardImports,
  GROUND_FLOORS,
  stripCommentsAndStrings,
  WORKSPACE_CRATES,
} from '../../scripts/lib/rust-module-graph.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the workspace', () => {
  it('has no module cycle in core, wasm or the emulator', () => {
    const cycles = findRustModuleCycles(root, WORKSPACE_CRATES);
    assert.deepEqual(cycles.map(describeCycle), []);
  });

  it("has no upward import from the emulator's ground floor into a service, the command line or the root", () => {
    const floor = GROUND_FLOORS['emulator/src'] ?? [];
    assert.ok(floor.includes('db') && floor.includes('error') && floor.includes('http'));
    assert.deepEqual(findUpwardImports(root, 'emulator/src', floor).map(describeUpwardImport), []);
  });
});

describe('the check, on a crate written for the run', () => {
  /** @type {string} */
  let scratch;
  before(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rust-module-graph-'));
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  /**
   * Writes `files` (paths relative to the crate's `src`) as a crate of its own.
   * @param {string} name
   * @param {Record<string, string>} files
   */
  function writeCrate(name, files) {
    for (const [file, source] of Object.entries(files)) {
      const target = path.join(scratch, name, 'src', file);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, source);
    }
  }

  /**
   * Writes `files` as a crate of its own and returns its cycles.
   * @param {string} name
   * @param {Record<string, string>} files
   */
  function cyclesOf(name, files) {
    writeCrate(name, files);
    return findRustModuleCycles(scratch, [`${name}/src`]);
  }

  it('reports two files that use each other, by file path and line', () => {
    const cycles = cyclesOf('two', {
      'lib.rs': 'pub mod db;\npub mod state;\n',
      'db.rs': 'use crate::state::AppState;\npub struct Database;\npub fn open(_: &AppState) {}\n',
      'state.rs': '//! The state.\n\nuse crate::db::Database;\npub struct AppState { pub db: Database }\n',
    });
    assert.equal(cycles.length, 1);
    assert.deepEqual(cycles[0]?.files, ['two/src/db.rs', 'two/src/state.rs']);
    assert.deepEqual(
      cycles[0]?.edges.map((edge) => `${edge.from}:${edge.line} -> ${edge.to}`).sort(),
      ['two/src/db.rs:1 -> two/src/state.rs', 'two/src/state.rs:3 -> two/src/db.rs'],
    );
    assert.match(describeCycle(cycles[0] ?? { files: [], edges: [] }), /cycle between two\/src\/db\.rs, two\/src\/state\.rs/);
  });

  it('follows `super::`, nested `use` trees, paths in code, `mod.rs` folders and `#[path]`', () => {
    const cycles = cyclesOf('three', {
      'lib.rs': 'pub mod error;\npub mod auth;\n',
      'error.rs': 'use crate::{auth::{error::{AuthError as Inner}}};\npub struct ApiError(Inner);\n',
      'auth/mod.rs': '#[cfg(feature = "x")]\n#[path = "failure.rs"]\npub mod error;\n',
      'auth/failure.rs': 'pub struct AuthError;\npub fn lift() -> super::super::error::ApiError { todo!() }\n',
    });
    assert.equal(cycles.length, 1);
    assert.deepEqual(cycles[0]?.files, ['three/src/auth/failure.rs', 'three/src/error.rs']);
  });

  it('reports a cycle through three files, and one through `crate::` in an expression', () => {
    const cycles = cyclesOf('ring', {
      'lib.rs': 'mod a;\nmod b;\nmod c;\n',
      'a.rs': 'use crate::b::B;\npub struct A(B);\n',
      'b.rs': 'pub struct B;\npub fn c() { crate::c::run(); }\n',
      'c.rs': 'pub fn run() { let _ = self::helper(); let _: Option<crate::a::A> = None; }\nfn helper() {}\n',
    });
    assert.deepEqual(
      cycles.map((cycle) => cycle.files),
      [['ring/src/a.rs', 'ring/src/b.rs', 'ring/src/c.rs']],
    );
  });

  it('does not count `mod` declarations, test modules using `super::*`, comments or strings', () => {
    const cycles = cyclesOf('clean', {
      'lib.rs': 'pub mod rest;\npub mod table;\n// use crate::rest::Query;\n',
      'rest/mod.rs': 'mod query;\npub use query::Query;\n/* use crate::rest::query::Query; */\n',
      'rest/query.rs':
        'use crate::table::Column;\npub struct Query(Column);\n' +
        'const SQL: &str = "use crate::rest::Query;";\n' +
        '#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::rest::query::Query as Same;\n}\n',
      'table.rs': '/// See [`crate::rest::Query`].\npub struct Column;\nconst RAW: &str = r#"crate::rest::Query"#;\n',
    });
    assert.deepEqual(cycles, []);
  });

  it('sees a parent and a child that use each other as a cycle', () => {
    const cycles = cyclesOf('family', {
      'lib.rs': 'pub mod keys;\n',
      'keys.rs': 'pub mod api_keys;\nuse api_keys::ApiKeys;\npub enum Role { Anon }\npub struct Keys(ApiKeys);\n',
      'keys/api_keys.rs': 'use super::Role;\npub struct ApiKeys(Role);\n',
    });
    assert.deepEqual(
      cycles.map((cycle) => cycle.files),
      [['family/src/keys.rs', 'family/src/keys/api_keys.rs']],
    );
  });

  it('reports a ground-floor file that uses a service, in code or in a folder module, and not the reverse', () => {
    writeCrate('layers', {
      'lib.rs': 'pub mod db;\npub mod error;\npub mod http;\npub mod rest;\npub mod state;\n',
      'db.rs': 'use crate::error::ApiError;\npub fn open() -> Result<(), ApiError> { crate::rest::schema::migrate() }\n',
      'error.rs': 'pub struct ApiError;\n',
      'http/mod.rs': 'pub mod server;\n',
      'http/server.rs': '// use crate::state::AppState;\nuse crate::state::{self as top};\npub fn serve(_: top::AppState) {}\n',
      'rest/mod.rs': 'pub mod schema;\nuse crate::db;\nuse crate::error::ApiError;\n',
      'rest/schema.rs': 'pub fn migrate() -> Result<(), crate::error::ApiError> { Ok(()) }\n',
      'state.rs': 'use crate::{db, rest};\npub struct AppState;\n',
    });
    const upward = findUpwardImports(scratch, 'layers/src', ['db', 'error', 'http']);
    assert.deepEqual(
      upward.map((edge) => `${edge.from}:${edge.line} -> ${edge.to}`),
      ['layers/src/db.rs:2 -> layers/src/rest/schema.rs', 'layers/src/http/server.rs:2 -> layers/src/state.rs'],
    );
    assert.match(describeUpwardImport(upward[0] ?? { from: '', to: '', line: 0, text: '' }), /upward import from the ground floor: layers\/src\/db\.rs:2/);
    assert.deepEqual(findUpwardImports(scratch, 'layers/src', ['db', 'error', 'http', 'rest', 'state']), []);
    assert.throws(() => findUpwardImports(scratch, 'layers/src', ['db', 'clock']), /no top-level module clock/);
  });

  it('fails clearly on a `mod` declaration with no file', () => {
    assert.throws(() => cyclesOf('missing', { 'lib.rs': 'mod gone;\n' }), /no file for `mod gone;`/);
  });
});

describe('the readers', () => {
  it('expand `use` trees into paths', () => {
    assert.deepEqual(expandUseTree('crate::a::{b, c::{d, self}, e as f, g::*}'), [
      ['crate', 'a', 'b'],
      ['crate', 'a', 'c', 'd'],
      ['crate', 'a', 'c'],
      ['crate', 'a', 'e'],
      ['crate', 'a', 'g'],
    ]);
    assert.deepEqual(expandUseTree('super::*'), [['super']]);
    assert.deepEqual(expandUseTree('self::x::{Y, self as z}'), [['self', 'x', 'Y'], ['self', 'x']]);
  });

  it('blank comments and literals but keep lines and lifetimes', () => {
    const source = "fn f<'a>(x: &'a str) -> char { 'c' } // crate::x\n/* crate::y */ \"crate::z\"\n";
    const stripped = stripCommentsAndStrings(source);
    assert.equal(stripped.split('\n').length, source.split('\n').length);
    assert.doesNotMatch(stripped, /crate::/);
    assert.match(stripped, /&'a str/);
  });
});
