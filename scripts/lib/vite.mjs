// @ts-check
// Starts the app's Vite dev server by its binary and waits until it answers HTTP.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appDir, viteBinary } from './repo.mjs';
import { LOOPBACK } from './ports.mjs';
import { exited, forEachLine, isRunning, outputTail, stopProcess } from './processes.mjs';

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
 */

/**
 * @param {ViteOptions} options
 * @returns {Promise<RunningVite>}
 */
export async function startVite({ port, host = LOOPBACK, env = {}, onOutput, detached = false, onSpawn, startupTimeoutMs = 60_000 }) {
  if (!existsSync(viteBinary)) {
    throw new Error(`${viteBinary} does not exist: run \`npm ci\` (scripts/setup.sh does) first.`);
  }
  /** @type {NodeJS.ProcessEnv} */
  const childEnv = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  const child = spawn(viteBinary, ['--host', host, '--port', String(port), '--strictPort'], {
    cwd: appDir,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  onSpawn?.(child);
  const stop = () => stopProcess(child, { group: detached });
  const tail = outputTail();
  forEachLine(child.stdout, (line) => {
    tail.push(line);
    onOutput?.(line, 'stdout');
  });
  forEachLine(child.stderr, (line) => {
    tail.push(line);
    onOutput?.(line, 'stderr');
  });
  /** @type {Error | undefined} */
  let spawnError;
  child.once('error', (error) => (spawnError = error));

  const url = `http://${host}:${port}/`;
  const deadline = Date.now() + startupTimeoutMs;
  try {
    for (;;) {
      if (spawnError) throw spawnError;
      if (!isRunning(child)) {
        const { code, signal } = await exited(child);
        throw new Error(`Vite exited before it was ready (code ${code}, signal ${signal}). Its output:\n${tail.text()}`);
      }
      if (await answers(url)) break;
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
