#!/usr/bin/env node
// @ts-check
// The Rust crates' module graph at file level, and its cycles. Clippy has no rule for import cycles between the
// modules of one crate, so this reads the source: `mod` declarations (from the crate root down, `#[path]`
// included) say which file is which module, and every `crate::`/`super::`/`self::` path (in `use` trees and in
// code) is an edge from the file that names it to the file that defines its target. A parent's `mod child;`
// is structure, not an edge; a parent that uses something of its child, and a child that uses something of its
// parent, are two edges and a cycle. Cycles are the strongly connected components of more than one file.
//
// A crate may also name its ground floor: the top-level modules every other module may use. A file of the ground
// floor may then use only files of the ground floor; an edge from it to any other module (a service, the command
// line, the crate root) is an upward import, reported like a cycle.
//
// `node scripts/lib/rust-module-graph.mjs [CRATE_SRC...]` prints the cycles and upward imports and exits 1 if
// there are any; without arguments it checks the workspace's crates.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The source folders of the workspace's crates, relative to the repository root. */
export const WORKSPACE_CRATES = ['core/src', 'wasm/src', 'emulator/src'];

/**
 * Each crate's ground floor, by top-level module name. The emulator's services (rest, auth, storage, functions,
 * realtime, faults) sit on these, and the state that composes them, the command line and the crate root sit on top.
 * @type {Record<string, string[]>}
 */
export const GROUND_FLOORS = {
  'emulator/src': [
    'clock',
    'db',
    'error',
    'gateway',
    'http',
    'keys',
    'private_file',
    'random',
    'read_access',
    'table',
    'timestamp',
  ],
};

/**
 * One file module: its file, its module path inside the crate (`[]` for the root) and what it names.
 * @typedef {{ file: string, modulePath: string[], children: Map<string, string> }} FileModule
 * @typedef {{ from: string, to: string, line: number, text: string }} Edge
 * @typedef {{ files: string[], edges: Edge[] }} Cycle
 */

/**
 * The text with comments, string literals and character literals blanked out (newlines kept, so line numbers
 * hold): a path inside a doc comment or a string is not a dependency.
 * @param {string} source
 */
export function stripCommentsAndStrings(source) {
  let out = '';
  let i = 0;
  const blank = (/** @type {string} */ text) => text.replace(/[^\n]/g, ' ');
  while (i < source.length) {
    const rest = source.slice(i, i + 3);
    if (rest.startsWith('//')) {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? source.length : end;
      out += blank(source.slice(i, stop));
      i = stop;
    } else if (rest.startsWith('/*')) {
      // Block comments nest in Rust.
      let depth = 0;
      let j = i;
      while (j < source.length) {
        if (source.startsWith('/*', j)) {
          depth += 1;
          j += 2;
        } else if (source.startsWith('*/', j)) {
          depth -= 1;
          j += 2;
          if (depth === 0) break;
        } else j += 1;
      }
      out += blank(source.slice(i, j));
      i = j;
    } else if (/^b?r#*"/.test(source.slice(i, i + 40)) && !/[\w]/.test(source[i - 1] ?? '')) {
      const match = /^b?r(#*)"/.exec(source.slice(i, i + 40));
      const hashes = match?.[1] ?? '';
      const start = i + (match?.[0].length ?? 0);
      const end = source.indexOf(`"${hashes}`, start);
      const stop = end === -1 ? source.length : end + 1 + hashes.length;
      out += blank(source.slice(i, stop));
      i = stop;
    } else if (source[i] === '"') {
      let j = i + 1;
      while (j < source.length && source[j] !== '"') j += source[j] === '\\' ? 2 : 1;
      out += blank(source.slice(i, j + 1));
      i = j + 1;
    } else if (source[i] === "'") {
      // A character literal ('a', '\n', '\u{0}'), not a lifetime ('a without a closing quote).
      const match = /^'(?:\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'\n])'/u.exec(source.slice(i, i + 12));
      if (match) {
        out += blank(match[0]);
        i += match[0].length;
      } else {
        out += source[i];
        i += 1;
      }
    } else {
      out += source[i];
      i += 1;
    }
  }
  return out;
}

/**
 * Expands a `use` tree (the text between `use` and `;`) into its paths, each a list of segments.
 * `a::{b, c::{d, self}}` gives `a::b`, `a::c::d`, `a::c`; renames (`as x`) and globs are dropped from the end.
 * @param {string} tree
 * @returns {string[][]}
 */
export function expandUseTree(tree) {
  // `as` renames become `@name`, so that dropping the whitespace keeps them apart from the path.
  const text = tree.replace(/\s+as\s+/g, '@').replace(/\s+/g, '');
  let i = 0;
  /** @returns {string[][]} */
  function parseTree(/** @type {string[]} */ prefix) {
    /** @type {string[]} */
    const segments = [...prefix];
    for (;;) {
      if (text[i] === '{') {
        i += 1;
        /** @type {string[][]} */
        const paths = [];
        while (i < text.length && text[i] !== '}') {
          const at = i;
          paths.push(...parseTree(segments));
          if (text[i] === ',') i += 1;
          // Text the grammar does not know (a macro in a `use`?) is skipped rather than looped on.
          else if (i === at) i += 1;
        }
        i += 1;
        return paths;
      }
      const match = /^(::)?([A-Za-z_][A-Za-z0-9_]*|\*)/.exec(text.slice(i));
      if (!match) return [segments];
      i += match[0].length;
      const name = match[2] ?? '';
      if (name === '*') return [segments];
      if (name !== 'self' || prefix.length === 0) segments.push(name);
      if (text.startsWith('::', i)) {
        i += 2;
        continue;
      }
      const rename = /^@[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
      if (rename) i += rename[0].length;
      return [segments];
    }
  }
  return parseTree([]);
}

/**
 * Reads a crate from its root file down its `mod` declarations.
 * @param {string} root the crate root (`lib.rs` or `main.rs`)
 * @returns {FileModule[]}
 */
function readCrate(root) {
  /** @type {FileModule[]} */
  const modules = [];
  /** @param {string} file @param {string[]} modulePath */
  function visit(file, modulePath) {
    const code = stripCommentsAndStrings(fs.readFileSync(file, 'utf8'));
    const raw = fs.readFileSync(file, 'utf8');
    const base = path.basename(file);
    const ownsDirectory = base === 'mod.rs' || base === 'lib.rs' || base === 'main.rs';
    const childDir = ownsDirectory ? path.dirname(file) : path.join(path.dirname(file), base.replace(/\.rs$/, ''));
    /** @type {Map<string, string>} */
    const children = new Map();
    const module = { file, modulePath, children };
    modules.push(module);
    // Only declarations at the file's top level: `mod x;` inside an inline module would be a grandchild.
    const declaration = /((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;/g;
    for (const match of raw.matchAll(declaration)) {
      // The declaration must be code, not a comment or string: check the blanked text at the same place.
      const at = match.index + match[0].lastIndexOf('mod');
      if (code.slice(at, at + 3) !== 'mod') continue;
      const name = match[2] ?? '';
      const explicit = /#\[path\s*=\s*"([^"]+)"\]/.exec(match[1] ?? '')?.[1];
      const candidates = explicit
        ? [path.join(path.dirname(file), explicit)]
        : [path.join(childDir, `${name}.rs`), path.join(childDir, name, 'mod.rs')];
      const childFile = candidates.find((candidate) => fs.existsSync(candidate));
      if (!childFile) throw new Error(`${file}: no file for \`mod ${name};\` (looked for ${candidates.join(', ')})`);
      children.set(name, childFile);
      visit(childFile, [...modulePath, name]);
    }
  }
  visit(root, []);
  return modules;
}

/**
 * The inline module (`mod tests { ... }`) path at each offset of a file's code, relative to the file module.
 * @param {string} code
 * @returns {(offset: number) => string[]}
 */
function inlineModulesAt(code) {
  /** @type {{ start: number, end: number, name: string }[]} */
  const blocks = [];
  for (const match of code.matchAll(/\bmod\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{/g)) {
    let depth = 0;
    let j = match.index + match[0].length - 1;
    for (; j < code.length; j += 1) {
      if (code[j] === '{') depth += 1;
      else if (code[j] === '}') {
        depth -= 1;
        if (depth === 0) break;
      }
    }
    blocks.push({ start: match.index, end: j, name: match[1] ?? '' });
  }
  return (offset) =>
    blocks
      .filter((block) => block.start <= offset && offset <= block.end)
      .sort((a, b) => a.start - b.start)
      .map((block) => block.name);
}

/**
 * The file module that defines `segments` (a path already made absolute inside the crate): the longest prefix
 * that is a file module.
 * @param {Map<string, FileModule>} byPath
 * @param {string[]} segments
 */
function owningFile(byPath, segments) {
  for (let length = segments.length; length >= 0; length -= 1) {
    const module = byPath.get(segments.slice(0, length).join('::'));
    if (module) return module.file;
  }
  return undefined;
}

/**
 * Makes a path absolute inside the crate, from the module it is written in; undefined for another crate's path.
 * @param {string[]} segments
 * @param {string[]} here the module the path is written in (file module and inline modules)
 * @param {Set<string>} localNames the child modules visible by bare name (2018 uniform paths)
 */
function absolute(segments, here, localNames) {
  const [first, ...rest] = segments;
  if (first === 'crate') return rest;
  if (first === 'self') return [...here, ...rest];
  if (first === 'super') {
    let base = here;
    let remaining = segments;
    while (remaining[0] === 'super') {
      base = base.slice(0, -1);
      remaining = remaining.slice(1);
    }
    return [...base, ...remaining];
  }
  if (first !== undefined && localNames.has(first)) return [...here, ...segments];
  return undefined;
}

/** @param {string} code @param {number} offset */
function lineOf(code, offset) {
  let line = 1;
  for (let i = 0; i < offset; i += 1) if (code[i] === '\n') line += 1;
  return line;
}

/**
 * The edges of one crate: from each file to each other file of the crate it names.
 * @param {FileModule[]} modules
 * @returns {Edge[]}
 */
function crateEdges(modules) {
  /** @type {Map<string, FileModule>} */
  const byPath = new Map(modules.map((module) => [module.modulePath.join('::'), module]));
  /** @type {Edge[]} */
  const edges = [];
  for (const module of modules) {
    const code = stripCommentsAndStrings(fs.readFileSync(module.file, 'utf8'));
    const inlineAt = inlineModulesAt(code);
    const localNames = new Set(module.children.keys());
    /** @param {string[]} segments @param {number} offset @param {string} text */
    const add = (segments, offset, text) => {
      const here = [...module.modulePath, ...inlineAt(offset)];
      const target = absolute(segments, here, inlineAt(offset).length === 0 ? localNames : new Set());
      if (!target) return;
      const to = owningFile(byPath, target);
      const seen = edges.some((edge) => edge.from === module.file && edge.to === to && edge.line === lineOf(code, offset));
      if (to && to !== module.file && !seen) {
        edges.push({ from: module.file, to, line: lineOf(code, offset), text: text.replace(/\s+/g, ' ').trim() });
      }
    };
    /** @type {[number, number][]} */
    const useSpans = [];
    for (const match of code.matchAll(/\buse\s+([^;]+);/g)) {
      useSpans.push([match.index, match.index + match[0].length]);
      for (const segments of expandUseTree(match[1] ?? '')) add(segments, match.index, match[0]);
    }
    // Paths in code: `crate::x::f()`, `super::Thing`, `self::y::Z`.
    for (const match of code.matchAll(/(?<![\w:])(?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+/g)) {
      if (useSpans.some(([start, end]) => match.index >= start && match.index < end)) continue;
      add(match[0].split('::'), match.index, match[0]);
    }
  }
  return edges;
}

/**
 * Tarjan's strongly connected components over `nodes` and `edges`.
 * @param {string[]} nodes
 * @param {Edge[]} edges
 * @returns {string[][]}
 */
export function stronglyConnectedComponents(nodes, edges) {
  /** @type {Map<string, string[]>} */
  const next = new Map(nodes.map((node) => [node, []]));
  for (const edge of edges) next.get(edge.from)?.push(edge.to);
  let counter = 0;
  /** @type {Map<string, number>} */
  const index = new Map();
  /** @type {Map<string, number>} */
  const low = new Map();
  /** @type {string[]} */
  const stack = [];
  const onStack = new Set();
  /** @type {string[][]} */
  const components = [];
  /** @param {string} node */
  function connect(node) {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      /** @type {string[]} */
      const component = [];
      for (;;) {
        const member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
        if (member === node) break;
      }
      components.push(component);
    }
  }
  for (const node of nodes) if (!index.has(node)) connect(node);
  return components;
}

/**
 * The module cycles of the crates whose source folders are `crateSources` (each with `lib.rs` and/or `main.rs`),
 * with file paths relative to `root`.
 * @param {string} root
 * @param {string[]} crateSources
 * @returns {Cycle[]}
 */
export function findRustModuleCycles(root, crateSources) {
  /** @type {Cycle[]} */
  const cycles = [];
  for (const source of crateSources) {
    for (const rootFile of ['lib.rs', 'main.rs']) {
      const crateRoot = path.join(root, source, rootFile);
      if (!fs.existsSync(crateRoot)) continue;
      const modules = readCrate(crateRoot);
      const edges = crateEdges(modules);
      const files = modules.map((module) => module.file);
      for (const component of stronglyConnectedComponents(files, edges)) {
        if (component.length < 2) continue;
        const members = new Set(component);
        const relative = (/** @type {string} */ file) => path.relative(root, file).split(path.sep).join('/');
        cycles.push({
          files: component.map(relative).sort(),
          edges: edges
            .filter((edge) => members.has(edge.from) && members.has(edge.to))
            .map((edge) => ({ ...edge, from: relative(edge.from), to: relative(edge.to) })),
        });
      }
    }
  }
  return cycles;
}

/**
 * The imports from a ground-floor file of the crate at `crateSource` (its `lib.rs`) to a file outside the ground
 * floor, which `groundFloor` names by top-level module; file paths relative to `root`. A name that is no
 * top-level module of the crate is an error, so that renaming a module cannot quietly drop it from the check.
 * @param {string} root
 * @param {string} crateSource
 * @param {string[]} groundFloor
 * @returns {Edge[]}
 */
export function findUpwardImports(root, crateSource, groundFloor) {
  const modules = readCrate(path.join(root, crateSource, 'lib.rs'));
  const topLevel = new Set(modules.map((module) => module.modulePath[0]).filter((name) => name !== undefined));
  const unknown = groundFloor.filter((name) => !topLevel.has(name));
  if (unknown.length > 0) throw new Error(`${crateSource}: no top-level module ${unknown.join(', ')} in its ground floor`);
  const floor = new Set(groundFloor);
  /** @type {Map<string, string | undefined>} */
  const topOf = new Map(modules.map((module) => [module.file, module.modulePath[0]]));
  const onFloor = (/** @type {string} */ file) => floor.has(topOf.get(file) ?? '');
  const relative = (/** @type {string} */ file) => path.relative(root, file).split(path.sep).join('/');
  return crateEdges(modules)
    .filter((edge) => onFloor(edge.from) && !onFloor(edge.to))
    .map((edge) => ({ ...edge, from: relative(edge.from), to: relative(edge.to) }));
}

/** @param {Edge} edge */
export function describeUpwardImport(edge) {
  return `upward import from the ground floor: ${edge.from}:${edge.line} -> ${edge.to}   (${edge.text})`;
}

/** @param {Cycle} cycle */
export function describeCycle(cycle) {
  const lines = [`cycle between ${cycle.files.join(', ')}:`];
  for (const edge of cycle.edges) lines.push(`  ${edge.from}:${edge.line} -> ${edge.to}   (${edge.text})`);
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const sources = process.argv.length > 2 ? process.argv.slice(2) : WORKSPACE_CRATES;
  const cycles = findRustModuleCycles(root, sources);
  for (const cycle of cycles) console.error(describeCycle(cycle));
  const upward = sources.flatMap((source) => {
    const floor = GROUND_FLOORS[source];
    return floor ? findUpwardImports(root, source, floor) : [];
  });
  for (const edge of upward) console.error(describeUpwardImport(edge));
  if (cycles.length > 0 || upward.length > 0) process.exit(1);
  console.log(`no module cycles in ${sources.join(', ')}, and no upward import from a ground floor`);
}
