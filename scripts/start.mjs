#!/usr/bin/env node
// @ts-check
// `npm start`: set up the toolchain, build the wasm package, start the emulator (unless a hosted Supabase project
// is configured) and the Vite page; stop both on Ctrl-C/SIGTERM. Node built-ins only: node_modules may not exist yet.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startEmulator } from './lib/emulator.mjs';
import { isPortFree, LOOPBACK, portFromEnv } from './lib/ports.mjs';
import { exited, isRunning, stopProcess } from './lib/processes.mjs';
import { repoRoot } from './lib/repo.mjs';
import { startVite } from './lib/vite.mjs';

const DEFAULT_PAGE_PORT = 5173;
const DEFAULT_EMULATOR_PORT = 54321;

/** @typedef {import('node:child_process').ChildProcess} ChildProcess */

/** Long-lived servers (tracked from the moment they are spawned), stopped together. */
/** @type {Set<ChildProcess>} */
const servers = new Set();
/** The build step running right now, if any (stopped too if we are interrupted). */
/** @type {ChildProcess | undefined} */
let currentStep;
let shuttingDown = false;

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  console.error(`npm start: ${message}`);
  process.exit(1);
}

/**
 * Reads the configuration before any slow step, so mistakes are reported at once.
 * @returns {{ pagePort: number, emulatorPort: number, hosted: { url: string, anonKey: string } | null, dataDir: string, logbookOpen: string | undefined }}
 */
function readConfig() {
  const env = process.env;
  const url = env.SUPABASE_URL?.trim() || undefined;
  const anonKey = env.SUPABASE_ANON_KEY?.trim() || undefined;
  if ((url === undefined) !== (anonKey === undefined)) {
    const missing = url === undefined ? 'SUPABASE_URL' : 'SUPABASE_ANON_KEY';
    const given = url === undefined ? 'SUPABASE_ANON_KEY' : 'SUPABASE_URL';
    fail(`${given} is set but ${missing} is not. Set both to use a hosted Supabase project, or neither to use the local emulator.`);
  }
  try {
    return {
      pagePort: portFromEnv('PORT', DEFAULT_PAGE_PORT),
      emulatorPort: portFromEnv('EMULATOR_PORT', DEFAULT_EMULATOR_PORT),
      hosted: url !== undefined && anonKey !== undefined ? { url, anonKey } : null,
      dataDir: path.resolve(env.GEOCACHE_DATA_DIR?.trim() || path.join(repoRoot, '.data')),
      logbookOpen: env.LOGBOOK_OPEN,
    };
  } catch (error) {
    return fail(/** @type {Error} */ (error).message);
  }
}

/**
 * Runs one build step with inherited output; exits the launcher if it fails.
 * @param {string} title
 * @param {string} command
 * @param {string[]} args
 */
async function step(title, command, args) {
  if (shuttingDown) return;
  console.log(`npm start: ${title}`);
  const child = spawn(command, args, { cwd: repoRoot, stdio: 'inherit' });
  currentStep = child;
  const spawnFailure = new Promise((resolve) => child.once('error', resolve));
  const outcome = await Promise.race([exited(child), spawnFailure]);
  currentStep = undefined;
  if (shuttingDown) return;
  if (outcome instanceof Error) fail(`could not run ${command}: ${outcome.message}`);
  const { code, signal } = /** @type {import('./lib/processes.mjs').ExitStatus} */ (outcome);
  if (code !== 0) fail(`${title} failed (exit code ${code}${signal ? `, signal ${signal}` : ''}).`);
}

/**
 * @param {string} variable
 * @param {number} port
 */
async function requireFreePort(variable, port) {
  if (!(await isPortFree(port, LOOPBACK))) {
    fail(`port ${port} on ${LOOPBACK} is already in use. Set ${variable} to a free port (e.g. ${variable}=${port + 1} npm start).`);
  }
}

/** @param {ChildProcess} child */
function track(child) {
  servers.add(child);
}

/**
 * Stops everything if a server that started successfully dies on its own.
 * @param {string} name
 * @param {ChildProcess} child
 */
function watch(name, child) {
  void exited(child).then(({ code, signal }) => {
    if (shuttingDown) return;
    console.error(`npm start: the ${name} stopped unexpectedly (exit code ${code}, signal ${signal}); stopping everything.`);
    void shutdown(1);
  });
}

/** @param {number} exitCode */
async function shutdown(exitCode) {
  if (shuttingDown) return;
  shuttingDown = true;
  const stopping = [...servers].map((child) => stopProcess(child, { group: true }));
  if (currentStep && isRunning(currentStep)) stopping.push(stopProcess(currentStep));
  await Promise.all(stopping);
  process.exit(exitCode);
}

/** @param {string} name */
function prefixed(name) {
  return (/** @type {string} */ line, /** @type {'stdout' | 'stderr'} */ stream) =>
    (stream === 'stderr' ? process.stderr : process.stdout).write(`[${name}] ${line}\n`);
}

async function main() {
  const config = readConfig();
  for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
    process.on(signal, () => void shutdown(0));
  }
  // Last resort if we are torn down abruptly: servers run in their own process groups, so kill those groups.
  process.on('exit', () => {
    for (const child of servers) {
      if (child.pid !== undefined && isRunning(child)) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });

  // Checked before the slow steps too, so a taken port is reported at once.
  await requireFreePort('PORT', config.pagePort);
  if (!config.hosted) await requireFreePort('EMULATOR_PORT', config.emulatorPort);

  await step('checking the toolchain (scripts/setup.sh)', 'bash', [path.join(repoRoot, 'scripts', 'setup.sh')]);
  await step('building the wasm package', 'bash', [path.join(repoRoot, 'scripts', 'build-wasm.sh')]);
  if (!config.hosted) await step('building the emulator', 'cargo', ['build', '-p', 'geocache-emulator']);
  if (shuttingDown) return;

  await requireFreePort('PORT', config.pagePort);
  /** @type {{ url: string, anonKey: string }} */
  let backend;
  /** @type {number | undefined} */
  let emulatorPid;
  if (config.hosted) {
    backend = config.hosted;
    console.log(`npm start: using the hosted Supabase project at ${backend.url} (no emulator started)`);
  } else {
    await requireFreePort('EMULATOR_PORT', config.emulatorPort);
    const emulator = await startEmulator({
      port: config.emulatorPort,
      db: path.join(config.dataDir, 'emulator.sqlite3'),
      detached: true,
      onSpawn: track,
      onOutput: prefixed('emulator'),
    });
    watch('emulator', emulator.child);
    emulatorPid = emulator.child.pid;
    backend = { url: emulator.url, anonKey: emulator.anonKey };
    console.log(`Emulator: ${emulator.url}`);
    console.log(`anon key: ${emulator.anonKey}`);
    console.log(`service_role key: ${emulator.serviceRoleKey}`);
  }
  if (shuttingDown) return;

  const vite = await startVite({
    port: config.pagePort,
    env: {
      VITE_SUPABASE_URL: backend.url,
      VITE_SUPABASE_ANON_KEY: backend.anonKey,
      VITE_LOGBOOK_OPEN: config.logbookOpen,
    },
    detached: true,
    onSpawn: track,
    onOutput: prefixed('vite'),
  });
  watch('page server (Vite)', vite.child);
  if (emulatorPid !== undefined) console.log(`Processes: emulator pid ${emulatorPid}, page server pid ${vite.child.pid}`);
  else console.log(`Processes: page server pid ${vite.child.pid}`);
  console.log(`Logbook: ${config.logbookOpen === 'true' ? 'open (LOGBOOK_OPEN=true)' : 'closed, teaser shown (set LOGBOOK_OPEN=true to open it)'}`);
  console.log(`Page: ${vite.url}`);
  console.log('Press Ctrl-C to stop.');
}

main().catch((/** @type {Error} */ error) => {
  if (shuttingDown) return;
  console.error(`npm start: ${error.message}`);
  void shutdown(1);
});
