// @ts-check
// The Rust toolchain choice of scripts/lib/toolchain.sh, for the Node scripts: tools that `cargo install` puts in
// ~/.cargo/bin come first on PATH, and wasm builds use Debian's compiler (the `debian-web` toolchain that
// scripts/setup-wasm-debian.sh links) only where rustup's toolchain lacks the wasm32 standard library.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const WASM_TARGET = 'wasm32-unknown-unknown';
export const DEBIAN_WASM_TOOLCHAIN = 'debian-web';

/**
 * The environment's PATH with cargo's bin directory first (when it exists and is not on PATH yet).
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string}
 */
export function pathWithCargoBin(env = process.env) {
  const cargoBin = path.join(env.CARGO_HOME || path.join(os.homedir(), '.cargo'), 'bin');
  const current = env.PATH ?? '';
  if (!existsSync(cargoBin) || current.split(path.delimiter).includes(cargoBin)) return current;
  return current ? `${cargoBin}${path.delimiter}${current}` : cargoBin;
}

/**
 * Whether the toolchain (undefined: the active one) has a wasm32 standard library.
 * @param {string | undefined} toolchain
 * @param {NodeJS.ProcessEnv} [env]
 */
export function wasmStdPresent(toolchain, env = process.env) {
  /** @type {NodeJS.ProcessEnv} */
  const childEnv = { ...env };
  if (toolchain !== undefined) childEnv.RUSTUP_TOOLCHAIN = toolchain;
  let libdir;
  try {
    libdir = execFileSync('rustc', ['--print', 'target-libdir', '--target', WASM_TARGET], {
      env: childEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return false;
  }
  return existsSync(libdir) && readdirSync(libdir).some((name) => name.startsWith('libstd-') && name.endsWith('.rlib'));
}

/**
 * The variables wasm builds need: `RUSTUP_TOOLCHAIN=debian-web` when rustup's toolchain lacks the wasm32 std (or
 * GEOCACHE_FORCE_DEBIAN_WASM=1) and the Debian one has it; nothing otherwise. Host builds never use it: they are
 * about 2.5 times faster on rustup's stable compiler.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {Record<string, string>}
 */
export function wasmToolchainEnv(env = process.env) {
  if (env.GEOCACHE_FORCE_DEBIAN_WASM !== '1' && wasmStdPresent(undefined, env)) return {};
  if (wasmStdPresent(DEBIAN_WASM_TOOLCHAIN, env)) return { RUSTUP_TOOLCHAIN: DEBIAN_WASM_TOOLCHAIN };
  throw new Error(`no Rust toolchain with the ${WASM_TARGET} standard library was found: run scripts/setup.sh first.`);
}
