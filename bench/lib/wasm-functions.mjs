// @ts-check
// Where the page's wasm bytes go, function by function (as `twiggy top` lists them): each function body's size
// read from the binary's code section, named from its name section. The page's build has its names stripped, so
// the breakdown reads a twin built the same way (the page's features, the release profile, wasm-bindgen, wasm-opt
// -Oz) with `-g` keeping the names; the report gives both code sections' sizes, so any gap shows.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { exited } from '../../scripts/lib/processes.mjs';
import { repoRoot } from '../../scripts/lib/repo.mjs';

/** Section ids of the wasm binary format. */
const SECTION_NAMES = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'data count', 'tag'];

class Reader {
  /** @param {Uint8Array} bytes @param {number} [offset] */
  constructor(bytes, offset = 0) {
    this.bytes = bytes;
    this.offset = offset;
  }

  byte() {
    if (this.offset >= this.bytes.length) throw new Error(`wasm: unexpected end at byte ${this.offset}`);
    return this.bytes[this.offset++];
  }

  /** An unsigned LEB128 number (u32 in every place this reads one). */
  u32() {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
    }
    throw new Error(`wasm: LEB128 number too long at byte ${this.offset}`);
  }

  name() {
    const length = this.u32();
    const text = new TextDecoder().decode(this.bytes.subarray(this.offset, this.offset + length));
    this.offset += length;
    return text;
  }

  limits() {
    const flags = this.byte();
    this.u32();
    if (flags & 1) this.u32();
  }
}

/**
 * @typedef {object} WasmFunction
 * @property {number} index
 * @property {string} name   from the name section, else `func[index]`
 * @property {number} size   bytes of its body, the size prefix included (twiggy's shallow size)
 */

/**
 * @typedef {object} WasmBreakdown
 * @property {number} totalBytes
 * @property {{ id: number, name: string, size: number }[]} sections   custom sections by their own name
 * @property {WasmFunction[]} functions   largest first
 * @property {number} dataBytes
 */

/**
 * @param {Uint8Array} bytes
 * @returns {WasmBreakdown}
 */
export function analyseWasm(bytes) {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new Error('not a wasm binary (no \\0asm header)');
  }
  const reader = new Reader(bytes, 8);
  /** @type {{ id: number, name: string, size: number }[]} */
  const sections = [];
  let importedFunctions = 0;
  /** @type {number[]} */
  const bodySizes = [];
  /** @type {Map<number, string>} */
  const names = new Map();
  let dataBytes = 0;
  while (reader.offset < bytes.length) {
    const start = reader.offset;
    const id = reader.byte();
    const size = reader.u32();
    const contentStart = reader.offset;
    const end = contentStart + size;
    if (end > bytes.length) throw new Error(`wasm: section ${id} runs past the end of the file`);
    const section = new Reader(bytes.subarray(0, end), contentStart);
    let label = SECTION_NAMES[id] ?? `unknown ${id}`;
    if (id === 0) {
      const customName = section.name();
      label = `custom "${customName}"`;
      if (customName === 'name') {
        while (section.offset < end) {
          const subId = section.byte();
          const subSize = section.u32();
          const subEnd = section.offset + subSize;
          if (subId === 1) {
            const count = section.u32();
            for (let i = 0; i < count; i += 1) names.set(section.u32(), section.name());
          }
          section.offset = subEnd;
        }
      }
    } else if (id === 2) {
      const count = section.u32();
      for (let i = 0; i < count; i += 1) {
        section.name();
        section.name();
        const kind = section.byte();
        if (kind === 0) {
          section.u32();
          importedFunctions += 1;
        } else if (kind === 1) {
          section.byte();
          section.limits();
        } else if (kind === 2) section.limits();
        else if (kind === 3) {
          section.byte();
          section.byte();
        } else if (kind === 4) {
          section.byte();
          section.u32();
        } else throw new Error(`wasm: unknown import kind ${kind}`);
      }
    } else if (id === 10) {
      const count = section.u32();
      for (let i = 0; i < count; i += 1) {
        const bodyStart = section.offset;
        const bodySize = section.u32();
        section.offset += bodySize;
        bodySizes.push(section.offset - bodyStart);
      }
    } else if (id === 11) dataBytes = size;
    sections.push({ id, name: label, size: end - start });
    reader.offset = end;
  }
  const functions = bodySizes.map((size, i) => {
    const index = importedFunctions + i;
    return { index, name: names.get(index) ?? `func[${index}]`, size };
  });
  functions.sort((a, b) => b.size - a.size || a.index - b.index);
  return { totalBytes: bytes.length, sections, functions, dataBytes };
}

const PRIMITIVES = new Set(['bool', 'char', 'str', 'f32', 'f64', 'i8', 'i16', 'i32', 'i64', 'i128', 'isize', 'u8', 'u16', 'u32', 'u64', 'u128', 'usize', 'T']);

/** Rust names carry a crate's disambiguator (`core[c5930c85a12de822]::`): dropped for reading. @param {string} name */
export const readableName = (name) => name.replace(/\[[0-9a-f]{16}\]/g, '');

/**
 * The crate a (demangled) Rust function name belongs to: its first path segment; for `<T as Trait>::f` T's crate,
 * or the trait's when T is a primitive (`<f64 as core::fmt::Display>::fmt` is core's). A name with no path at all
 * is one of wasm-bindgen's exports and shims.
 * @param {string} name
 */
export function crateOf(name) {
  const clean = readableName(name);
  const qualified = /^<[&\s]*(?:mut\s+|dyn\s+)*([A-Za-z_]\w*)(::)?/.exec(clean);
  if (qualified) {
    if (qualified[2]) return qualified[1];
    const trait = / as ([A-Za-z_]\w*)::/.exec(clean);
    if (trait) return trait[1];
    return PRIMITIVES.has(qualified[1]) ? 'core' : '(other)';
  }
  const path = /^([A-Za-z_]\w*)::/.exec(clean);
  if (path) return path[1];
  return '(exports and shims)';
}

/**
 * @param {WasmFunction[]} functions
 * @returns {{ crate: string, size: number, functions: number }[]}  largest first
 */
export function byCrate(functions) {
  /** @type {Map<string, { crate: string, size: number, functions: number }>} */
  const groups = new Map();
  for (const fn of functions) {
    const crate = crateOf(fn.name);
    const group = groups.get(crate) ?? { crate, size: 0, functions: 0 };
    group.size += fn.size;
    group.functions += 1;
    groups.set(crate, group);
  }
  return [...groups.values()].sort((a, b) => b.size - a.size);
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} [env]
 */
async function run(command, args, env = process.env) {
  const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const failed = new Promise((_, reject) => child.once('error', reject));
  const { code } = await Promise.race([exited(child), failed]);
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit code ${code})`);
}

/**
 * Builds the named twin of the page's wasm into `outDir` and returns its path: wasm-pack without its wasm-opt step
 * (the features of the page's first wasm, wasm/pkg-logbook: --no-default-features --features rest), then npm
 * binaryen's wasm-opt -Oz with -g.
 * @param {string} outDir
 */
export async function buildNamedPageWasm(outDir) {
  const script = [
    'set -euo pipefail',
    'source scripts/lib/toolchain.sh',
    'use_wasm_toolchain',
    'PATH="$PWD/node_modules/.bin:$PATH"',
    `wasm-pack --quiet build wasm --release --no-opt --target bundler --weak-refs --out-name geocache_client --out-dir "${outDir}" --no-default-features --features rest`,
  ].join('\n');
  await run('bash', ['-c', script]);
  const input = path.join(outDir, 'geocache_client_bg.wasm');
  const output = path.join(outDir, 'geocache_client_named.wasm');
  await run(path.join(repoRoot, 'node_modules', '.bin', 'wasm-opt'), [input, '-o', output, '-Oz', '-g']);
  return output;
}

/** @param {number} bytes */
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

/**
 * @param {object} input
 * @param {WasmBreakdown} input.named        the twin with names
 * @param {WasmBreakdown} input.shipped      the page's own wasm, as served
 * @param {string} input.shippedPath
 * @param {number} [input.top]
 * @param {string} input.header             the run's date, commit and machine
 */
export function renderWasmFunctions({ named, shipped, shippedPath, top = 60, header }) {
  const codeOf = (/** @type {WasmBreakdown} */ b) => b.sections.find((s) => s.id === 10)?.size ?? 0;
  const code = codeOf(named);
  const pct = (/** @type {number} */ size) => `${((100 * size) / code).toFixed(1)} %`;
  const out = [];
  out.push('# The page\'s wasm by function');
  out.push('');
  out.push(header);
  out.push('');
  out.push(
    `The page's wasm as served (\`${shippedPath}\`): ${kB(shipped.totalBytes)} raw, code section ${kB(codeOf(shipped))}, data ${kB(shipped.dataBytes)}, ` +
      `${shipped.functions.length} functions. Its names are stripped, so the functions are named from a twin built the same way ` +
      `(release profile, the page's features, wasm-bindgen, wasm-opt -Oz) with \`-g\`: code section ${kB(code)}, ` +
      `${named.functions.length} functions. Sizes are each body's bytes in the code section (twiggy's shallow size), before compression. ` +
      'wasm-opt inlines and merges functions: a body carries the name of the function it began as, and what was inlined into it counts as its bytes.',
  );
  out.push('');
  out.push('## Sections');
  out.push('');
  out.push('| Section | Bytes (named twin) | Bytes (served) |');
  out.push('| --- | --- | --- |');
  for (const section of named.sections) {
    const served = shipped.sections.find((s) => s.name === section.name);
    out.push(`| ${section.name} | ${section.size.toLocaleString('en')} | ${served ? served.size.toLocaleString('en') : '–'} |`);
  }
  out.push('');
  out.push('## By crate (the first path segment of each function\'s name)');
  out.push('');
  out.push('| Crate | Bytes | Share of code | Functions |');
  out.push('| --- | --- | --- | --- |');
  for (const group of byCrate(named.functions).slice(0, 30)) {
    out.push(`| ${group.crate} | ${group.size.toLocaleString('en')} | ${pct(group.size)} | ${group.functions} |`);
  }
  out.push('');
  out.push(`## The ${top} largest functions`);
  out.push('');
  out.push('| Bytes | Share of code | Function |');
  out.push('| --- | --- | --- |');
  for (const fn of named.functions.slice(0, top)) {
    out.push(`| ${fn.size.toLocaleString('en')} | ${pct(fn.size)} | \`${readableName(fn.name).replaceAll('|', '\\|').replaceAll('`', "'")}\` |`);
  }
  const rest = named.functions.slice(top);
  out.push(`| ${rest.reduce((sum, fn) => sum + fn.size, 0).toLocaleString('en')} | ${pct(rest.reduce((sum, fn) => sum + fn.size, 0))} | the other ${rest.length} functions |`);
  out.push('');
  return out.join('\n');
}

/**
 * @param {string} file
 */
export async function analyseWasmFile(file) {
  return analyseWasm(await readFile(file));
}
