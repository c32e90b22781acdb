// @ts-check
// Finishes the package.json wasm-pack writes for wasm/pkg, so the package resolves the same way in every tool:
// `exports` (types first, then the bundler entry; package.json itself for tools that read it) and `repository`.
// wasm-pack copies wasm/README.md and wasm/LICENSE beside it. Run by scripts/build-wasm.sh:
//   node scripts/lib/npm-package.mjs wasm/pkg
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the package's sources live: the workspace's repository, the crate in its `wasm` folder. */
export const REPOSITORY = {
  type: 'git',
  url: 'git+https://github.com/geocache-logbook/geocache-logbook.git',
  directory: 'wasm',
};

/**
 * The finished manifest (a new object; the input is not changed).
 * @param {Record<string, unknown>} manifest  what wasm-pack wrote
 * @returns {Record<string, unknown>}
 */
export function finishManifest(manifest) {
  const entry = manifest.module ?? manifest.main;
  const types = manifest.types;
  if (typeof entry !== 'string' || typeof types !== 'string') {
    throw new Error('package.json names no entry (module or main) and types: was it written by `wasm-pack build --target bundler`?');
  }
  const files = Array.isArray(manifest.files) ? manifest.files : [];
  for (const file of [entry, types]) {
    if (!files.includes(file)) throw new Error(`package.json lists ${file} as an entry but not in "files"`);
  }
  return {
    ...manifest,
    repository: REPOSITORY,
    exports: {
      '.': { types: `./${types}`, default: `./${entry}` },
      './package.json': './package.json',
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/lib/npm-package.mjs PACKAGE_DIR');
    process.exit(2);
  }
  // wasm-pack copies them only when the crate has them (README.md is found when the build starts).
  for (const required of ['README.md', 'LICENSE']) {
    if (!existsSync(path.join(dir, required))) {
      console.error(`${path.join(dir, required)} is missing: wasm-pack copies it from wasm/; build again.`);
      process.exit(1);
    }
  }
  const file = path.join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  writeFileSync(file, `${JSON.stringify(finishManifest(manifest), null, 2)}\n`);
}
