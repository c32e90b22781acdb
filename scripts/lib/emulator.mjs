// @ts-check
// Starts the prebuilt emulator and reads the lines it prints once its socket is bound: "API URL: ...",
// "anon key: ...", "service_role key: ...", "Publishable key: sb_publishable_..." and "Secret key: sb_secret_...".
// By default it reads the repository's supabase/config.toml (`--config`), so the row cap there applies here too.
// Without jwtSecret the emulator signs with its own random secret, kept in `jwt-secret` beside a database file (so a
// data directory keeps its keys across restarts) or fresh for ":memory:"; the printed keys are always the ones to use.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { emulatorBinary, repoRoot } from './repo.mjs';
import { LOOPBACK } from './ports.mjs';
import { environmentWith, exited, forEachLine, outputTail, stopProcess } from './processes.mjs';

/**
 * @typedef {object} RunningEmulator
 * @property {string} url              e.g. http://127.0.0.1:54321 (the real port, also for --port 0)
 * @property {number} port
 * @property {string} anonKey          legacy JWT key, role anon
 * @property {string} serviceRoleKey   legacy JWT key, role service_role
 * @property {string} publishableKey   sb_publishable_..., role anon
 * @property {string} secretKey        sb_secret_..., role service_role (refused from browsers)
 * @property {import('node:child_process').ChildProcess} child
 * @property {() => Promise<import('./processes.mjs').ExitStatus>} stop  SIGTERM, then SIGKILL after a grace period
 */

/**
 * @typedef {object} EmulatorOptions
 * @property {number} [port]            0 (the default) lets the OS pick a free port
 * @property {string} [host]
 * @property {string} [db]              a file path, or ":memory:" (the default here, for tests)
 * @property {string} [jwtSecret]      at least 32 bytes; passed in the environment, where `ps` does not show it
 * @property {string | null} [config]   the Supabase CLI config file to read (`--config`); null reads none
 * @property {string} [binary]
 * @property {string[]} [extraArgs]     more flags after the standard ones (e.g. tuning flags a test needs)
 * @property {Record<string, string | undefined>} [env]  added to the inherited environment; undefined removes a variable
 * @property {(line: string, stream: 'stdout' | 'stderr') => void} [onOutput]  every output line, including the key lines
 * @property {boolean} [detached]       own process group (so a terminal's Ctrl-C reaches only the launcher)
 * @property {(child: import('node:child_process').ChildProcess) => void} [onSpawn]  lets a launcher track it before it is ready
 * @property {number} [startupTimeoutMs]
 * @property {boolean} [raiseAuthRateLimits]  raise the per-address auth rate limits out of the way (every test request
 *   comes from 127.0.0.1); default: on when GEOCACHE_TEST_RAISE_AUTH_RATE_LIMITS=1, as scripts/test.mjs sets it
 */

/** The repository's Supabase CLI config: `[api] max_rows` is the row cap of every emulator started here. */
export const supabaseConfig = path.join(repoRoot, 'supabase', 'config.toml');

/** The flags that lift the per-address auth rate limits (supabase/config.toml `[auth.rate_limit]`) for tests. */
export const RAISED_AUTH_RATE_LIMIT_ARGS = [
  '--auth-rate-limit-sign-in-sign-ups', '1000000',
  '--auth-rate-limit-token-refresh', '1000000',
  '--auth-rate-limit-token-verifications', '1000000',
];
/** The emulator reads its JWT secret from this variable when `--jwt-secret` is not given. */
export const JWT_SECRET_VARIABLE = 'GEOCACHE_EMULATOR_JWT_SECRET';

const KEY_LINES = /** @type {const} */ ({
  url: /^API URL: (\S+)\s*$/,
  anonKey: /^anon key: (\S+)\s*$/,
  serviceRoleKey: /^service_role key: (\S+)\s*$/,
  publishableKey: /^Publishable key: (sb_publishable_\S+)\s*$/,
  secretKey: /^Secret key: (sb_secret_\S+)\s*$/,
});
const KEY_FIELDS = /** @type {(keyof typeof KEY_LINES)[]} */ (Object.keys(KEY_LINES));

/**
 * @param {EmulatorOptions} [options]
 * @returns {Promise<RunningEmulator>}
 */
export async function startEmulator({
  port = 0,
  host = LOOPBACK,
  db = ':memory:',
  jwtSecret,
  config = supabaseConfig,
  binary = emulatorBinary,
  extraArgs = [],
  env = {},
  onOutput,
  detached = false,
  onSpawn,
  startupTimeoutMs = 30_000,
  raiseAuthRateLimits = process.env.GEOCACHE_TEST_RAISE_AUTH_RATE_LIMITS === '1',
} = {}) {
  if (!existsSync(binary)) {
    throw new Error(`The emulator binary ${binary} does not exist: run \`cargo build -p geocache-emulator\` first.`);
  }
  const args = ['--host', host, '--port', String(port), '--db', db];
  if (config !== null) args.push('--config', config);
  if (raiseAuthRateLimits) args.push(...RAISED_AUTH_RATE_LIMIT_ARGS);
  args.push(...extraArgs);
  // Without jwtSecret, a secret set in the environment (the owner's own) still applies.
  const secretEnv = jwtSecret === undefined ? env : { [JWT_SECRET_VARIABLE]: jwtSecret, ...env };
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached, env: environmentWith(secretEnv) });
  onSpawn?.(child);
  const stop = () => stopProcess(child, { group: detached });
  const tail = outputTail();
  /** @type {Partial<Record<keyof typeof KEY_LINES, string>>} */
  const found = {};

  const ready = new Promise((resolve, reject) => {
    child.once('error', reject);
    forEachLine(child.stdout, (line) => {
      tail.push(line);
      onOutput?.(line, 'stdout');
      for (const [field, pattern] of Object.entries(KEY_LINES)) {
        const match = pattern.exec(line);
        if (match) found[/** @type {keyof typeof KEY_LINES} */ (field)] = match[1];
      }
      if (KEY_FIELDS.every((field) => found[field])) resolve(undefined);
    });
    forEachLine(child.stderr, (line) => {
      tail.push(line);
      onOutput?.(line, 'stderr');
    });
    void exited(child).then(({ code, signal }) =>
      reject(new Error(`The emulator exited before it was ready (code ${code}, signal ${signal}). Its output:\n${tail.text()}`)),
    );
  });

  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`The emulator printed no API URL and keys within ${startupTimeoutMs} ms. Its output:\n${tail.text()}`)),
      startupTimeoutMs,
    );
  });
  try {
    await Promise.race([ready, timeout]);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }

  const url = /** @type {string} */ (found.url);
  return {
    url,
    port: Number(new URL(url).port),
    anonKey: /** @type {string} */ (found.anonKey),
    serviceRoleKey: /** @type {string} */ (found.serviceRoleKey),
    publishableKey: /** @type {string} */ (found.publishableKey),
    secretKey: /** @type {string} */ (found.secretKey),
    child,
    stop,
  };
}

/**
 * Runs `geocache-emulator owner ...` (add, list, remove) on a database file, which a running emulator may be serving;
 * `input` goes to its standard input (a new account's password). Resolves with its exit code and output.
 * @param {string[]} args  e.g. ['add', '--db', file, 'owner@example.com']
 * @param {{ input?: string, binary?: string }} [options]
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
export async function ownerCommand(args, { input = '', binary = emulatorBinary } = {}) {
  const child = spawn(binary, ['owner', ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: environmentWith({}) });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const spawnError = new Promise((resolve) => child.once('error', resolve));
  // A command that needs no password exits without reading it: that broken pipe is no failure.
  child.stdin.on('error', () => {});
  child.stdin.end(input);
  const outcome = await Promise.race([exited(child), spawnError]);
  if (outcome instanceof Error) throw outcome;
  return { code: /** @type {import('./processes.mjs').ExitStatus} */ (outcome).code, stdout, stderr };
}
