// @ts-check
// The Rust module-cycle check (scripts/lib/rust-module-graph.mjs): the workspace's crates have no cycle between
// their files, and the check itself reports a cycle it is shown, through each kind of path, and stays quiet about
// what is not a cycle (a parent's `mod` declaration, a child's tests reaching `super::*`, comments and strings).
// Run with `node --test tests/lint/` from the repository root.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  describeCycle,
  expandUseTree,
  findRustModuleCycles,
  stripCommentsAndStrings,
  WORKSPACE_CRATES,
} from '../../scripts/lib/rust-module-graph.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the workspace', () => {
  it('has no module cycle in core, wasm or the emulator', () => {
    const cycles = findRustModuleCycles(root, WORKSPACE_CRATES);
    assert.deepEqual(cycles.map(describeCycle), []);
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
   * Writes `files` (paths relative to the crate's `src`) as a crate of its own and returns its cycles.
   * @param {string} name
   * @param {Record<string, string>} files
   */
  function cyclesOf(name, files) {
    for (const [file, source] of Object.entries(files)) {
      const target = path.join(scratch, name, 'src', file);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, source);
    }
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
