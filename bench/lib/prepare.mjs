// @ts-check
// Everything the measurements need, built with the project's own scripts (Node built-ins only: this runs before
// bench/node_modules exists).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { npmOutOfSyncReason } from '../../scripts/lib/npm-in-sync.mjs';
import { exited } from '../../scripts/lib/processes.mjs';
import { repoRoot } from '../../scripts/lib/repo.mjs';

export const benchDir = path.join(repoRoot, 'bench');
// Built with the workspace's `emulator` profile (Cargo.toml): opt-level 3, where `release` optimises the wasm for size.
export const releaseEmulator = path.join(repoRoot, 'target', 'emulator', 'geocache-emulator');

/**
 * Runs a command with its output shown; throws when it fails.
 * @param {string} title
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} [options]
 */
export async function step(title, command, args, { cwd = repoRoot, env = process.env } = {}) {
  console.log(`bench: ${title}`);
  const child = spawn(command, args, { cwd, env, stdio: 'inherit' });
  const failed = new Promise((_, reject) => child.once('error', reject));
  const { code, signal } = await Promise.race([exited(child), failed]);
  if (code !== 0) throw new Error(`${title} failed (exit code ${code}${signal ? `, signal ${signal}` : ''})`);
}

/**
 * @param {{ noBuild: boolean, desktop: boolean }} options  `desktop`: the parse harness (wasm/pkg-bench) is needed
 */
export async function prepare({ noBuild, desktop }) {
  if (!noBuild) await step('checking the toolchain (scripts/setup.sh)', 'bash', [path.join(repoRoot, 'scripts', 'setup.sh')]);
  // bench/ is its own npm project (its own lockfile), so it never races the workspaces' package-lock.json.
  const reason = npmOutOfSyncReason(benchDir);
  if (reason === null) console.log('bench: bench/node_modules matches bench/package-lock.json');
  else await step(`installing the benchmark's packages (npm ci --prefix bench: ${reason})`, 'npm', ['ci', '--prefix', benchDir, '--no-audit', '--no-fund']);
  if (noBuild) {
    for (const [file, how] of [
      [releaseEmulator, 'cargo build --profile emulator -p geocache-emulator'],
      [path.join(repoRoot, 'wasm', 'pkg', 'package.json'), 'bash scripts/build-wasm.sh'],
      ...(desktop ? [[path.join(repoRoot, 'wasm', 'pkg-bench', 'package.json'), 'bash scripts/build-wasm.sh bench']] : []),
    ]) {
      if (!existsSync(file)) throw new Error(`--no-build: ${path.relative(repoRoot, file)} is missing (run \`${how}\`)`);
    }
    return;
  }
  await step('building the wasm package (scripts/build-wasm.sh)', 'bash', [path.join(repoRoot, 'scripts', 'build-wasm.sh')]);
  // The parse harness times `parseEntriesForBenchmark`, which only the `bench` feature exports (wasm/pkg-bench);
  // the mobile profile alone does not run it.
  if (desktop) await step('building the wasm package with the benchmark export (scripts/build-wasm.sh bench)', 'bash', [
    path.join(repoRoot, 'scripts', 'build-wasm.sh'),
    'bench',
  ]);
  await step('building the emulator (cargo profile "emulator": opt-level 3)', 'cargo', ['build', '--profile', 'emulator', '-p', 'geocache-emulator']);
}
