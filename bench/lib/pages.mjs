// @ts-check
// Builds the pages under test into a temporary directory and serves them with `vite preview`, each started by
// its binary (so the PID we hold is the server's) on a free port. Our page goes through the launchers `npm
// start` uses (scripts/lib/vite.mjs); the peer and the parse harness are bench/'s own Vite projects.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { findFreePort, LOOPBACK } from '../../scripts/lib/ports.mjs';
import { exited, forEachLine, isRunning, outputTail, stopProcess } from '../../scripts/lib/processes.mjs';
import { repoRoot } from '../../scripts/lib/repo.mjs';
import { buildApp, startVitePreview } from '../../scripts/lib/vite.mjs';
import { benchDir } from './prepare.mjs';

const benchVite = path.join(benchDir, 'node_modules', '.bin', 'vite');

/**
 * @typedef {object} PageProject
 * @property {string} name
 * @property {string} cwd     the Vite project (its vite.config.* is used)
 * @property {string} vite    the vite binary of the project's node_modules
 */

/** @type {Record<'peer' | 'parse', PageProject>} */
export const projects = {
  peer: { name: 'peer', cwd: path.join(benchDir, 'peer'), vite: benchVite },
  parse: { name: 'parse harness', cwd: path.join(benchDir, 'parse'), vite: benchVite },
};

/**
 * @param {Record<string, string | undefined>} extra  undefined removes an inherited variable
 * @returns {NodeJS.ProcessEnv}
 */
function environment(extra) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env };
  // Nothing inherited may configure the page: only what this run sets.
  for (const name of Object.keys(env)) if (name.startsWith('VITE_')) delete env[name];
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value;
  return env;
}

/** The page configuration variables: set only by this run, never inherited. */
const PAGE_VARIABLES = ['VITE_LOGBOOK_OPEN', 'VITE_SUPABASE_URL', 'VITE_SUPABASE_ANON_KEY'];

/**
 * Our page (app/), built with its own Vite config into outDir.
 * @param {string} outDir
 * @param {Record<string, string | undefined>} viteEnv
 */
export async function buildOurs(outDir, viteEnv) {
  const env = Object.fromEntries(PAGE_VARIABLES.map((name) => [name, viteEnv[name]]));
  await buildApp({ outDir, env, extraArgs: ['--logLevel', 'warn'] });
}

/**
 * Our build served by `vite preview` on a free port.
 * @param {string} outDir
 * @returns {Promise<RunningPreview>}
 */
export async function previewOurs(outDir) {
  const server = await startVitePreview({ outDir, port: await findFreePort() });
  return { url: server.url, pid: server.child.pid, stop: server.stop };
}

/**
 * `vite build` into outDir, with the page configuration baked in.
 * @param {PageProject} project
 * @param {string} outDir
 * @param {Record<string, string | undefined>} viteEnv
 */
export async function buildPage(project, outDir, viteEnv) {
  const child = spawn(project.vite, ['build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: project.cwd,
    env: environment(viteEnv),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = outputTail(60);
  forEachLine(child.stdout, (line) => tail.push(line));
  forEachLine(child.stderr, (line) => tail.push(line));
  const { code } = await exited(child);
  if (code !== 0) throw new Error(`vite build of ${project.name} (${path.relative(repoRoot, project.cwd)}) failed:\n${tail.text()}`);
}

/**
 * @typedef {object} RunningPreview
 * @property {string} url
 * @property {number | undefined} pid
 * @property {() => Promise<unknown>} stop
 */

/**
 * Serves a build with `vite preview` on a free port.
 * @param {PageProject} project
 * @param {string} outDir
 * @returns {Promise<RunningPreview>}
 */
export async function previewPage(project, outDir) {
  const port = await findFreePort();
  const child = spawn(project.vite, ['preview', '--outDir', outDir, '--host', LOOPBACK, '--port', String(port), '--strictPort'], {
    cwd: project.cwd,
    env: environment({}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = outputTail();
  forEachLine(child.stdout, (line) => tail.push(line));
  forEachLine(child.stderr, (line) => tail.push(line));
  const stop = () => stopProcess(child);
  const url = `http://${LOOPBACK}:${port}/`;
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      if (!isRunning(child)) throw new Error(`vite preview of ${project.name} exited:\n${tail.text()}`);
      if (await answers(url)) break;
      if (Date.now() > deadline) throw new Error(`vite preview of ${project.name} did not answer ${url}:\n${tail.text()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid, stop };
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
