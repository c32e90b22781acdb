// @ts-check
// Vite, started by its binary: the dev server, a production build, and `vite preview` serving a build. The app's
// (app/, the workspace's vite) unless `cwd` and `binary` name another Vite project, such as bench/'s pages.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { appDir, viteBinary } from './repo.mjs';
import { LOOPBACK } from './ports.mjs';
import { environmentWith, exited, forEachLine, isRunning, outputTail, stopProcess } from './processes.mjs';

/**
 * @typedef {object} RunningVite
 * @property {string} url  e.g. http://127.0.0.1:5173/
 * @property {number} port
 * @property {import('node:child_process').ChildProcess} child
 * @property {() => Promise<import('./processes.mjs').ExitStatus>} stop
 */

/**
 * @typedef {object} ViteOptions
 * @property {number} port                                  bound with --strictPort: a taken port is an error
 * @property {string} [host]
 * @property {Record<string, string | undefined>} [env]     e.g. VITE_SUPABASE_URL; undefined removes an inherited variable
 * @property {(line: string, stream: 'stdout' | 'stderr') => void} [onOutput]
 * @property {boolean} [detached]
 * @property {(child: import('node:child_process').ChildProcess) => void} [onSpawn]  lets a launcher track it before it is ready
 * @property {number} [startupTimeoutMs]
 * @property {string} [cwd]                                 the Vite project (its vite.config.*); default app/
 * @property {string} [binary]                              that project's vite binary; default the workspace's
 */

/** @param {string} binary */
function requireVite(binary) {
  if (!existsSync(binary)) {
    throw new Error(`${binary} does not exist: run \`npm ci\` (scripts/setup.sh does) first.`);
  }
}

/**
 * The dev server (the page's `VITE_*` configuration comes from `env`).
 * @param {ViteOptions} options
 * @returns {Promise<RunningVite>}
 */
export function startVite(options) {
  return startServer([], options);
}

/**
 * `vite preview`: serves a production build (see `buildApp`) as a static host would.
 * @param {ViteOptions & { outDir: string }} options
 * @returns {Promise<RunningVite>}
 */
export function startVitePreview({ outDir, ...options }) {
  return startServer(['preview', '--outDir', outDir], options);
}

/**
 * @param {string[]} command  the vite subcommand and its own arguments
 * @param {ViteOptions} options
 * @returns {Promise<RunningVite>}
 */
async function startServer(
  command,
  { port, host = LOOPBACK, env = {}, onOutput, detached = false, onSpawn, startupTimeoutMs = 60_000, cwd = appDir, binary = viteBinary },
) {
  requireVite(binary);
  const child = spawn(binary, [...command, '--host', host, '--port', String(port), '--strictPort'], {
    cwd,
    env: environmentWith(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  onSpawn?.(child);
  const stop = () => stopProcess(child, { group: detached });
  const tail = outputTail();
  const url = `http://${host}:${port}/`;
  // Ready only once this child says it serves the URL: with --strictPort it says so only after binding the port,
  // and a server another process started on the same port a moment earlier must not be taken for it.
  let listening = false;
  forEachLine(child.stdout, (line) => {
    tail.push(line);
    if (!listening && stripVTControlCharacters(line).includes(url)) listening = true;
    onOutput?.(line, 'stdout');
  });
  forEachLine(child.stderr, (line) => {
    tail.push(line);
    onOutput?.(line, 'stderr');
  });
  /** @type {Error | undefined} */
  let spawnError;
  child.once('error', (error) => (spawnError = error));

  const deadline = Date.now() + startupTimeoutMs;
  try {
    for (;;) {
      if (spawnError) throw spawnError;
      if (!isRunning(child)) {
        const { code, signal } = await exited(child);
        throw new Error(`Vite exited before it was ready (code ${code}, signal ${signal}). Its output:\n${tail.text()}`);
      }
      if (listening && (await answers(url))) break;
      if (Date.now() > deadline) {
        throw new Error(`Vite did not answer ${url} within ${startupTimeoutMs} ms. Its output:\n${tail.text()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, child, stop };
}

/** @param {string} url */
async function answers(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * @typedef {object} BuildOptions
 * @property {string} outDir                                 emptied first
 * @property {Record<string, string | undefined>} [env]      the page's `VITE_*` configuration
 * @property {string[]} [extraArgs]                          more `vite build` flags (e.g. --manifest)
 * @property {(line: string, stream: 'stdout' | 'stderr') => void} [onOutput]
 * @property {(child: import('node:child_process').ChildProcess) => void} [onSpawn]
 * @property {string} [cwd]                                  the Vite project; default app/
 * @property {string} [binary]                               that project's vite binary; default the workspace's
 */

/**
 * `vite build` of the page (or of the project in `cwd`) into `outDir`; resolves to its output lines (stdout and stderr, in order), rejects
 * with them when it fails.
 * @param {BuildOptions} options
 * @returns {Promise<string[]>}
 */
export async function buildApp({ outDir, env = {}, extraArgs = [], onOutput, onSpawn, cwd = appDir, binary = viteBinary }) {
  requireVite(binary);
  // NO_COLOR: plain text, so callers can read the build's messages.
  const child = spawn(binary, ['build', '--outDir', outDir, '--emptyOutDir', ...extraArgs], {
    cwd,
    env: environmentWith({ NO_COLOR: '1', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onSpawn?.(child);
  /** @type {string[]} */
  const output = [];
  const tail = outputTail();
  for (const [stream, name] of /** @type {const} */ ([[child.stdout, 'stdout'], [child.stderr, 'stderr']])) {
    forEachLine(stream, (line) => {
      output.push(line);
      tail.push(line);
      onOutput?.(line, name);
    });
  }
  // 'close' (not 'exit'): it comes after the output streams have ended, so every line has been read.
  /** @type {Promise<import('./processes.mjs').ExitStatus>} */
  const closed = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const spawnError = new Promise((resolve) => child.once('error', resolve));
  const outcome = await Promise.race([closed, spawnError]);
  if (outcome instanceof Error) throw outcome;
  const { code, signal } = /** @type {import('./processes.mjs').ExitStatus} */ (outcome);
  if (code !== 0) throw new Error(`vite build failed (code ${code}, signal ${signal}). Its last lines:\n${tail.text()}`);
  return output;
}
