// @ts-check
// Child-process lifetime: wait for exit, stop gracefully (SIGTERM, then SIGKILL after a grace period).
import readline from 'node:readline';

/** @typedef {import('node:child_process').ChildProcess} ChildProcess */
/** @typedef {{ code: number | null, signal: NodeJS.Signals | null }} ExitStatus */

/**
 * Resolves once the child has exited (immediately if it already has).
 * @param {ChildProcess} child
 * @returns {Promise<ExitStatus>}
 */
export function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** @param {ChildProcess} child */
export function isRunning(child) {
  return child.exitCode === null && child.signalCode === null;
}

/**
 * Sends a signal to the child, or to its whole process group when it was spawned detached (it leads one).
 * @param {ChildProcess} child
 * @param {NodeJS.Signals} signal
 * @param {boolean} group
 */
function signalChild(child, signal, group) {
  if (child.pid === undefined || !isRunning(child)) return;
  try {
    if (group) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch (error) {
    // ESRCH: it exited between the check and the signal.
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ESRCH') throw error;
  }
}

/**
 * Stops a child: SIGTERM (or `signal`), then SIGKILL if it is still running after `graceMs`.
 * @param {ChildProcess} child
 * @param {{ graceMs?: number, group?: boolean, signal?: NodeJS.Signals }} [options] group: signal the process group
 *   (detached children); signal: the polite one (PostgreSQL's fast shutdown is SIGINT)
 * @returns {Promise<ExitStatus>}
 */
export async function stopProcess(child, { graceMs = 5000, group = false, signal = 'SIGTERM' } = {}) {
  const done = exited(child);
  if (!isRunning(child)) return done;
  signalChild(child, signal, group);
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const killed = new Promise((resolve) => {
    timer = setTimeout(() => {
      signalChild(child, 'SIGKILL', group);
      resolve(undefined);
    }, graceMs);
  });
  await Promise.race([done, killed]);
  clearTimeout(timer);
  return done;
}

/**
 * Calls `onLine` for every line the stream produces; keeps the pipe drained so the child never blocks on a
 * full pipe.
 * @param {NodeJS.ReadableStream | null} stream
 * @param {(line: string) => void} onLine
 */
export function forEachLine(stream, onLine) {
  if (stream === null) return;
  readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
}

/**
 * A bounded buffer of a child's recent output, quoted in error messages when it fails to start.
 * @param {number} [limit]
 */
export function outputTail(limit = 40) {
  /** @type {string[]} */
  const lines = [];
  return {
    /** @param {string} line */
    push(line) {
      lines.push(line);
      if (lines.length > limit) lines.shift();
    },
    text() {
      return lines.join('\n');
    },
  };
}

/**
 * The inherited environment with `overrides` applied; an undefined value removes an inherited variable.
 * @param {Record<string, string | undefined>} overrides
 * @returns {NodeJS.ProcessEnv}
 */
export function environmentWith(overrides) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}
