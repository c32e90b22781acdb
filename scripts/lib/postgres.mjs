// @ts-check
// A throwaway PostgreSQL cluster for tests: `initdb` into a fresh temporary directory as an unprivileged user,
// a server that listens only on 127.0.0.1 (a free port) and on a socket inside that directory, password
// authentication with a random password, and the directory removed on stop. Debian's server binaries are
// used (/usr/lib/postgresql/<version>/bin; `node scripts/test.mjs postgres` installs them where missing).
// Nothing here touches the system's own clusters.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findFreePort, LOOPBACK } from './ports.mjs';
import { exited, forEachLine, outputTail, stopProcess } from './processes.mjs';

const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql';
/** The name the cluster's superuser gets: Supabase's own superuser, so the migration runs as `postgres`. */
export const SUPERUSER = 'supabase_admin';
/** Where clusters are created: `scripts/test.mjs` points this at a directory it removes on exit (`createScratch`). */
const SCRATCH_VARIABLE = 'GEOCACHE_PG_SCRATCH';

/**
 * @typedef {object} RunningPostgres
 * @property {string} host        127.0.0.1
 * @property {number} port
 * @property {string} superuser   the initdb superuser's name
 * @property {string} password    the superuser's password; tests give the roles they create the same one
 * @property {string} version     the server's major version, e.g. "15"
 * @property {() => Promise<void>} stop  fast shutdown, then the cluster's directory is removed
 */

/**
 * The newest Debian PostgreSQL server binaries (or $POSTGRES_BINDIR).
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {{ binDir: string, version: string }}
 */
export function findPostgres(env = process.env) {
  const configured = env.POSTGRES_BINDIR?.trim();
  if (configured) return { binDir: configured, version: path.basename(path.dirname(configured)) };
  const versions = existsSync(DEBIAN_POSTGRES_ROOT)
    ? readdirSync(DEBIAN_POSTGRES_ROOT).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a))
    : [];
  for (const version of versions) {
    const binDir = path.join(DEBIAN_POSTGRES_ROOT, version, 'bin');
    if (existsSync(path.join(binDir, 'initdb')) && existsSync(path.join(binDir, 'postgres'))) return { binDir, version };
  }
  throw new Error(
    `No PostgreSQL server binaries in ${DEBIAN_POSTGRES_ROOT}/<version>/bin. Install Debian's postgresql package ` +
      '(`node scripts/test.mjs postgres` does), or set POSTGRES_BINDIR.',
  );
}

/**
 * PostgreSQL refuses to run as root: as root, the server runs as the `postgres` system user (created by
 * Debian's package); otherwise as ourselves.
 * @returns {{ uid: number, gid: number } | undefined}
 */
function unprivilegedUser() {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (/** @type {string} */ flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('Running as root, the test cluster needs the `postgres` system user (Debian\'s postgresql package creates it).');
  }
}

/**
 * Runs a command to completion as the cluster's user; rejects with its output when it fails.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string, user: { uid: number, gid: number } | undefined, env: NodeJS.ProcessEnv }} options
 */
async function run(command, args, { cwd, user, env }) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], ...user });
  const tail = outputTail();
  forEachLine(child.stdout, (line) => tail.push(line));
  forEachLine(child.stderr, (line) => tail.push(line));
  const spawnError = new Promise((resolve) => child.once('error', resolve));
  const outcome = await Promise.race([exited(child), spawnError]);
  if (outcome instanceof Error) throw outcome;
  const { code, signal } = /** @type {import('./processes.mjs').ExitStatus} */ (outcome);
  if (code !== 0) throw new Error(`${path.basename(command)} failed (code ${code}, signal ${signal}):\n${tail.text()}`);
}

/**
 * Creates and starts a throwaway cluster. Call `stop()` when done (tests: in an `after` hook).
 * @param {{ startupTimeoutMs?: number, onOutput?: (line: string) => void }} [options]
 * @returns {Promise<RunningPostgres>}
 */
export async function startPostgres({ startupTimeoutMs = 60_000, onOutput } = {}) {
  const { binDir, version } = findPostgres();
  const user = unprivilegedUser();
  // As root, /tmp rather than $TMPDIR: the server's user must be able to reach its directory.
  const scratch = process.env[SCRATCH_VARIABLE] || (user ? '/tmp' : os.tmpdir());
  const root = await mkdtemp(path.join(scratch, 'geocache-pg-'));
  const remove = () => rm(root, { recursive: true, force: true });
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let server;
  // Last resort if the caller never stops it (a crashed test): kill the server, remove its files.
  const onExit = () => {
    server?.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  try {
    const dataDir = path.join(root, 'data');
    const socketDir = path.join(root, 'socket');
    await mkdir(socketDir);
    const password = randomBytes(18).toString('base64url');
    const passwordFile = path.join(root, 'password');
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    // Only the cluster's user may enter: the socket and the data are private to it.
    await chmod(root, 0o700);
    if (user) {
      for (const entry of [root, socketDir, passwordFile]) await chown(entry, user.uid, user.gid);
    }
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C.UTF-8', TZ: 'UTC' };

    await run(
      path.join(binDir, 'initdb'),
      [
        '--pgdata', dataDir,
        '--username', SUPERUSER,
        '--pwfile', passwordFile,
        '--auth', 'scram-sha-256',
        '--encoding', 'UTF8',
        '--locale', 'C.UTF-8',
        '--no-sync',
      ],
      { cwd: root, user, env },
    );
    await rm(passwordFile);

    for (let attempt = 1; ; attempt++) {
      const port = await findFreePort(LOOPBACK);
      try {
        const stopServer = await startServer({
          binDir, dataDir, socketDir, port, user, env, cwd: root, startupTimeoutMs, onOutput,
          onSpawn: (child) => (server = child),
        });
        return {
          host: LOOPBACK,
          port,
          superuser: SUPERUSER,
          password,
          version,
          stop: async () => {
            await stopServer();
            await remove();
            process.removeListener('exit', onExit);
          },
        };
      } catch (error) {
        // Another program may take the port between our check and the server's bind: try another one.
        if (attempt >= 3 || !/could not (bind|create listen socket)/i.test(String(error))) throw error;
      }
    }
  } catch (error) {
    await remove();
    process.removeListener('exit', onExit);
    throw error;
  }
}

/**
 * @param {{ binDir: string, dataDir: string, socketDir: string, port: number, user: { uid: number, gid: number } | undefined,
 *   env: NodeJS.ProcessEnv, cwd: string, startupTimeoutMs: number, onOutput?: (line: string) => void,
 *   onSpawn: (child: import('node:child_process').ChildProcess) => void }} options
 * @returns {Promise<() => Promise<void>>} stops the server
 */
async function startServer({ binDir, dataDir, socketDir, port, user, env, cwd, startupTimeoutMs, onOutput, onSpawn }) {
  const settings = {
    listen_addresses: LOOPBACK,
    port: String(port),
    unix_socket_directories: socketDir,
    // A throwaway cluster: durability is not wanted, speed is.
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    // Supabase databases run in UTC.
    timezone: 'UTC',
    log_timezone: 'UTC',
    max_connections: '20',
  };
  const args = ['-D', dataDir, ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
  const child = spawn(path.join(binDir, 'postgres'), args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], ...user });
  onSpawn(child);
  const tail = outputTail();
  const stop = async () => {
    // SIGINT is PostgreSQL's fast shutdown: open sessions are ended rather than waited for.
    await stopProcess(child, { signal: 'SIGINT', graceMs: 15_000 });
  };
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  try {
    await new Promise((resolve, reject) => {
      const onLine = (/** @type {string} */ line) => {
        tail.push(line);
        onOutput?.(line);
        if (line.includes('database system is ready to accept connections')) resolve(undefined);
      };
      forEachLine(child.stdout, onLine);
      forEachLine(child.stderr, onLine);
      child.once('error', reject);
      void exited(child).then(({ code, signal }) =>
        reject(new Error(`postgres exited before it was ready (code ${code}, signal ${signal}):\n${tail.text()}`)),
      );
      timer = setTimeout(
        () => reject(new Error(`postgres was not ready within ${startupTimeoutMs} ms:\n${tail.text()}`)),
        startupTimeoutMs,
      );
    });
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return stop;
}

/**
 * A scratch directory for every cluster of one test run (pass it to the tests as GEOCACHE_PG_SCRATCH), so whatever
 * a crashed test leaves behind is found by `removeScratch` and nothing else is touched. In /tmp, not $TMPDIR: the
 * unprivileged user the clusters run as must reach it (each cluster's own directory inside is private to that user).
 * @returns {Promise<string>}
 */
export async function createScratch() {
  const dir = await mkdtemp('/tmp/geocache-pg-scratch.');
  await chmod(dir, 0o755);
  return dir;
}

/**
 * Stops every server still running on a cluster under `scratch` (fast shutdown, then SIGKILL), then removes it.
 * @param {string} scratch
 */
export async function removeScratch(scratch) {
  if (!existsSync(scratch)) return;
  for (const name of readdirSync(scratch).filter((entry) => entry.startsWith('geocache-pg-'))) {
    const dataDir = path.join(scratch, name, 'data');
    const pid = serverPid(dataDir);
    if (pid === undefined) continue;
    signal(pid, 'SIGINT');
    for (let tries = 0; tries < 100 && alive(pid); tries++) await new Promise((resolve) => setTimeout(resolve, 100));
    signal(pid, 'SIGKILL');
  }
  await rm(scratch, { recursive: true, force: true });
}

/**
 * The PID in the cluster's postmaster.pid, when that process still runs on this very directory (not a recycled id).
 * @param {string} dataDir
 * @returns {number | undefined}
 */
function serverPid(dataDir) {
  let pid;
  let commandLine;
  try {
    pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
  return Number.isInteger(pid) && pid > 0 && commandLine.includes(dataDir) ? pid : undefined;
}

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {number} pid
 * @param {NodeJS.Signals} name
 */
function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
