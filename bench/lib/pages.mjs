// @ts-check
// Builds the pages under test into a temporary directory and serves them with `vite preview`, each started by
// its binary (so the PID we hold is the server's) on a free port, all through the launchers `npm start` uses
// (scripts/lib/vite.mjs). The peer and the parse harness are bench/'s own Vite projects, with bench/'s own vite.
import path from 'node:path';
import { findFreePort } from '../../scripts/lib/ports.mjs';
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
 * The changes to the inherited environment (undefined removes a variable): nothing inherited may configure the
 * page, only what this run sets.
 * @param {Record<string, string | undefined>} extra
 * @returns {Record<string, string | undefined>}
 */
function environment(extra) {
  /** @type {Record<string, string | undefined>} */
  const env = Object.fromEntries(Object.keys(process.env).filter((name) => name.startsWith('VITE_')).map((name) => [name, undefined]));
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
  try {
    await buildApp({ outDir, cwd: project.cwd, binary: project.vite, env: environment(viteEnv), extraArgs: ['--logLevel', 'warn'] });
  } catch (error) {
    throw new Error(`vite build of ${project.name} (${path.relative(repoRoot, project.cwd)}) failed: ${error instanceof Error ? error.message : error}`);
  }
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
  const server = await startVitePreview({
    outDir,
    port: await findFreePort(),
    cwd: project.cwd,
    binary: project.vite,
    env: environment({}),
    startupTimeoutMs: 30_000,
  });
  return { url: server.url, pid: server.child.pid, stop: server.stop };
}
