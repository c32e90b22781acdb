// @ts-check
// What `npm start`, `npm run preview` and `npm run build` share: reading the configuration before any slow step,
// build steps with inherited output, the emulator (unless a hosted project is configured), long-lived servers in
// their own process groups, and one shutdown path for Ctrl-C/SIGTERM, a failed step or a server that dies.
// Node built-ins only: node_modules may not exist yet when these run.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startEmulator } from './emulator.mjs';
import { isPortFree, LOOPBACK, portFromEnv } from './ports.mjs';
import { exited, isRunning, stopProcess } from './processes.mjs';
import { emulatorBinary, repoRoot } from './repo.mjs';
import { readSupabaseKey } from './supabase-key.mjs';

/** @typedef {import('node:child_process').ChildProcess} ChildProcess */

/**
 * @typedef {object} LaunchConfig
 * @property {number} pagePort
 * @property {number} emulatorPort
 * @property {{ url: string, key: string } | null} hosted   SUPABASE_URL and SUPABASE_PUBLISHABLE_KEY (or
 *                                                               SUPABASE_ANON_KEY), when both are set
 * @property {string} dataDir
 * @property {string | undefined} logbookOpen                   LOGBOOK_OPEN as given ("true" opens the logbook)
 * @property {string | undefined} requestTimeoutMs              REQUEST_TIMEOUT_MS as given (the page validates it)
 */

export const DEFAULT_EMULATOR_PORT = 54321;

/**
 * A launcher named after its command (e.g. "npm start"), which prefixes its messages.
 * @param {string} command
 */
export function createLauncher(command) {
  /** Long-lived servers (tracked from the moment they are spawned), stopped together. */
  /** @type {Set<ChildProcess>} */
  const servers = new Set();
  /** The build step running right now, if any (stopped too if we are interrupted). */
  /** @type {ChildProcess | undefined} */
  let currentStep;
  /** @type {(() => void)[]} */
  const cleanups = [];
  let shuttingDown = false;

  /**
   * @param {string} message
   * @returns {never}
   */
  function fail(message) {
    console.error(`${command}: ${message}`);
    runCleanups();
    process.exit(1);
  }

  function runCleanups() {
    for (const cleanup of cleanups.splice(0)) cleanup();
  }

  /**
   * Reads the configuration before any slow step, so mistakes are reported at once.
   * @param {{ defaultPagePort: number }} options
   * @returns {LaunchConfig}
   */
  function readConfig({ defaultPagePort }) {
    const env = process.env;
    const url = env.SUPABASE_URL?.trim() || undefined;
    try {
      const keyNames = { publishable: 'SUPABASE_PUBLISHABLE_KEY', anon: 'SUPABASE_ANON_KEY' };
      const key = readSupabaseKey(env, keyNames);
      if ((url === undefined) !== (key === undefined)) {
        const given = url === undefined ? (env.SUPABASE_PUBLISHABLE_KEY?.trim() ? keyNames.publishable : keyNames.anon) : 'SUPABASE_URL';
        const missing = url === undefined ? 'SUPABASE_URL' : `${keyNames.publishable} (or ${keyNames.anon})`;
        fail(`${given} is set but ${missing} is not. Set both to use a hosted Supabase project, or neither to use the local emulator.`);
      }
      return {
        pagePort: portFromEnv('PORT', defaultPagePort),
        emulatorPort: portFromEnv('EMULATOR_PORT', DEFAULT_EMULATOR_PORT),
        hosted: url !== undefined && key !== undefined ? { url, key } : null,
        dataDir: path.resolve(env.GEOCACHE_DATA_DIR?.trim() || path.join(repoRoot, '.data')),
        logbookOpen: env.LOGBOOK_OPEN,
        requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
      };
    } catch (error) {
      return fail(/** @type {Error} */ (error).message);
    }
  }

  /**
   * Runs one step to completion with inherited output; exits the launcher if it fails.
   * @param {string} title
   * @param {string} file
   * @param {string[]} args
   * @param {{ cwd?: string }} [options]
   */
  async function step(title, file, args, { cwd = repoRoot } = {}) {
    if (shuttingDown) return;
    console.log(`${command}: ${title}`);
    const child = spawn(file, args, { cwd, stdio: 'inherit' });
    trackStep(child);
    const spawnFailure = new Promise((resolve) => child.once('error', resolve));
    const outcome = await Promise.race([exited(child), spawnFailure]);
    if (shuttingDown) return;
    if (outcome instanceof Error) fail(`could not run ${file}: ${outcome.message}`);
    const { code, signal } = /** @type {import('./processes.mjs').ExitStatus} */ (outcome);
    if (code !== 0) fail(`${title} failed (exit code ${code}${signal ? `, signal ${signal}` : ''}).`);
  }

  /**
   * Marks a short-lived child as the step in progress, so an interruption stops it too.
   * @param {ChildProcess} child
   */
  function trackStep(child) {
    currentStep = child;
    void exited(child).then(() => {
      if (currentStep === child) currentStep = undefined;
    });
  }

  /**
   * @param {string} variable
   * @param {number} port
   */
  async function requireFreePort(variable, port) {
    if (!(await isPortFree(port, LOOPBACK))) {
      fail(`port ${port} on ${LOOPBACK} is already in use. Set ${variable} to a free port (e.g. ${variable}=${port + 1} ${command}).`);
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
      console.error(`${command}: the ${name} stopped unexpectedly (exit code ${code}, signal ${signal}); stopping everything.`);
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
    runCleanups();
    process.exit(exitCode);
  }

  /** Ctrl-C, SIGTERM and SIGHUP stop everything; an abrupt exit still kills the servers' process groups. */
  function handleSignals() {
    for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
      process.on(signal, () => void shutdown(0));
    }
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
      runCleanups();
    });
  }

  /** @param {string} name */
  function prefixed(name) {
    return (/** @type {string} */ line, /** @type {'stdout' | 'stderr'} */ stream) =>
      (stream === 'stderr' ? process.stderr : process.stdout).write(`[${name}] ${line}\n`);
  }

  /**
   * Setup and builds every launcher needs: the toolchain, the wasm package and (for a local backend) the emulator.
   * @param {{ emulator: boolean }} options
   */
  async function prepare({ emulator }) {
    await step('checking the toolchain (scripts/setup.sh)', 'bash', [path.join(repoRoot, 'scripts', 'setup.sh')]);
    await step('building the wasm package', 'bash', [path.join(repoRoot, 'scripts', 'build-wasm.sh')]);
    if (emulator) await step('building the emulator', 'cargo', ['build', '-p', 'geocache-emulator']);
  }

  /**
   * The hosted project, or a started emulator on its data file (printing its URL and keys).
   * @param {LaunchConfig} config
   * @returns {Promise<{ url: string, key: string, emulatorPid?: number, db?: string }>}
   */
  async function startBackend(config) {
    if (config.hosted) {
      console.log(`${command}: using the hosted Supabase project at ${config.hosted.url} (no emulator started)`);
      return config.hosted;
    }
    await requireFreePort('EMULATOR_PORT', config.emulatorPort);
    const db = path.join(config.dataDir, 'emulator.sqlite3');
    const emulator = await startEmulator({
      port: config.emulatorPort,
      db,
      detached: true,
      onSpawn: track,
      onOutput: prefixed('emulator'),
    });
    watch('emulator', emulator.child);
    console.log(`Emulator: ${emulator.url}`);
    console.log(`Publishable key: ${emulator.publishableKey}`);
    console.log(`Secret key: ${emulator.secretKey}`);
    console.log(`anon key: ${emulator.anonKey}`);
    console.log(`service_role key: ${emulator.serviceRoleKey}`);
    // The page gets the kind of key a hosted project hands out today.
    return { url: emulator.url, key: emulator.publishableKey, emulatorPid: emulator.child.pid, db };
  }

  /**
   * What is serving, once both servers are up: the processes, the pages' addresses (the owner's page is built with
   * every page, the logbook open or not, and never linked from it) and how to name an owner in the emulator's database.
   * @param {LaunchConfig} config
   * @param {{ emulatorPid?: number, db?: string }} backend
   * @param {{ url: string, pid: number | undefined }} pageServer
   */
  function announce(config, backend, pageServer) {
    if (backend.emulatorPid !== undefined) console.log(`Processes: emulator pid ${backend.emulatorPid}, page server pid ${pageServer.pid}`);
    else console.log(`Processes: page server pid ${pageServer.pid}`);
    console.log(`Logbook: ${config.logbookOpen === 'true' ? 'open (LOGBOOK_OPEN=true)' : 'closed, teaser shown (set LOGBOOK_OPEN=true to open it)'}`);
    console.log(`Page: ${pageServer.url}`);
    console.log(`Owner page: ${new URL('owner.html', pageServer.url).href}`);
    if (backend.db !== undefined) {
      console.log(`Add an owner (asks for the account's password): ${shortPath(emulatorBinary)} owner add --db ${shortPath(backend.db)} EMAIL`);
    }
    console.log('Press Ctrl-C to stop.');
  }

  /**
   * Runs `main`; an error it throws is reported and stops everything.
   * @param {() => Promise<void>} main
   */
  function run(main) {
    main().catch((/** @type {Error} */ error) => {
      if (shuttingDown) return;
      console.error(`${command}: ${error.message}`);
      void shutdown(1);
    });
  }

  return {
    fail,
    readConfig,
    step,
    trackStep,
    requireFreePort,
    track,
    watch,
    shutdown,
    handleSignals,
    prefixed,
    prepare,
    startBackend,
    announce,
    run,
    /** @param {() => void} cleanup  runs once, synchronously, when the launcher exits */
    onExit: (cleanup) => void cleanups.push(cleanup),
    get shuttingDown() {
      return shuttingDown;
    },
  };
}

/**
 * The `VITE_*` variables the page is built or served with. An unset variable is passed as undefined, which removes
 * one inherited from the environment: the launcher's own variables decide.
 * @param {{ url: string, key: string }} backend
 * @param {Pick<LaunchConfig, 'logbookOpen' | 'requestTimeoutMs'>} config
 */
export function pageEnv(backend, { logbookOpen, requestTimeoutMs }) {
  return {
    VITE_SUPABASE_URL: backend.url,
    VITE_SUPABASE_PUBLISHABLE_KEY: backend.key,
    // The older name is removed, so one inherited from the environment cannot contradict the launcher's key.
    VITE_SUPABASE_ANON_KEY: undefined,
    VITE_LOGBOOK_OPEN: logbookOpen,
    // Passed as given: the page's src/config/env.ts is the one place that decides what is valid (a positive whole
    // number of milliseconds; unset or empty leaves the client's 30 s default) and reports anything else.
    VITE_REQUEST_TIMEOUT_MS: requestTimeoutMs,
  };
}

/** `file` relative to the working directory when it lies inside it, else as it is. */
function shortPath(/** @type {string} */ file) {
  const relative = path.relative(process.cwd(), file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
