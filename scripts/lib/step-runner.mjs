// @ts-check
// `npm test`'s steps: a banner naming each, its output unfiltered, its time, and a stop at the first failure.
import { spawn } from 'node:child_process';
import { environmentWith, exited } from './processes.mjs';

const colour = process.stdout.isTTY
  ? { bold: '\x1b[1m', red: '\x1b[1;31m', green: '\x1b[32m', reset: '\x1b[0m' }
  : { bold: '', red: '', green: '', reset: '' };

/** A failed step: `exitCode` is what the whole run exits with. */
export class StepFailure extends Error {
  /**
   * @param {string} message
   * @param {number} exitCode
   */
  constructor(message, exitCode) {
    super(message);
    this.name = 'StepFailure';
    this.exitCode = exitCode;
  }
}

/**
 * Runs a command with the terminal's stdio; resolves when it exits 0, rejects with a StepFailure otherwise (a signal
 * counts as 128 + its number, as in a shell).
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: Record<string, string | undefined>, cwd?: string }} [options]
 */
export async function run(command, args, { env = {}, cwd } = {}) {
  const child = spawn(command, args, { stdio: 'inherit', env: environmentWith(env), cwd });
  const spawnError = new Promise((resolve) => child.once('error', resolve));
  const outcome = await Promise.race([exited(child), spawnError]);
  if (outcome instanceof Error) throw new StepFailure(`${command}: ${outcome.message}`, 127);
  const { code, signal } = /** @type {import('./processes.mjs').ExitStatus} */ (outcome);
  if (code === 0) return;
  const { constants } = await import('node:os');
  const exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0);
  throw new StepFailure(`${[command, ...args].join(' ')} exited with ${code ?? signal}`, exitCode);
}

/**
 * Runs commands side by side, for suites that do not fight over ports and spend most of their time waiting: the
 * first one's output is shown as it comes, each other's once it has exited, under a line naming it, so no two
 * outputs interleave. Waits for all of them; rejects with the first failure (in the order given).
 * @param {{ label: string, command: string, args: string[], env?: Record<string, string | undefined> }[]} commands
 */
export async function runSideBySide(commands) {
  const outcomes = await Promise.allSettled(
    commands.map(async ({ label, command, args, env = {} }, index) => {
      if (index === 0) return run(command, args, { env });
      /** @type {Buffer[]} */
      const output = [];
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: environmentWith(env) });
      child.stdout?.on('data', (chunk) => output.push(chunk));
      child.stderr?.on('data', (chunk) => output.push(chunk));
      const spawnError = new Promise((resolve) => child.once('error', resolve));
      const outcome = await Promise.race([exited(child), spawnError]);
      process.stdout.write(`\n${colour.bold}--- ${label} (run beside the above) ---${colour.reset}\n`);
      process.stdout.write(Buffer.concat(output));
      if (outcome instanceof Error) throw new StepFailure(`${command}: ${outcome.message}`, 127);
      const { code, signal } = /** @type {import('./processes.mjs').ExitStatus} */ (outcome);
      if (code !== 0) throw new StepFailure(`${label}: ${[command, ...args].join(' ')} exited with ${code ?? signal}`, code ?? 1);
    }),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** @param {number} ms */
const seconds = (ms) => Math.floor(ms / 1000);

/**
 * Runs steps in order (the ones `selected` names, all when it is empty; `always` steps regardless), stopping at the
 * first failure; resolves to the number run.
 * @param {{ id: string, title: string, always?: boolean, action: () => Promise<void> }[]} steps
 * @param {string[]} selected
 */
export async function runSteps(steps, selected) {
  let count = 0;
  for (const { id, title, always, action } of steps) {
    if (!always && selected.length > 0 && !selected.includes(id)) continue;
    count++;
    console.log(`\n${colour.bold}==> ${title} [${id}]${colour.reset}`);
    const started = Date.now();
    try {
      await action();
    } catch (error) {
      const exitCode = error instanceof StepFailure ? error.exitCode : 1;
      if (!(error instanceof StepFailure)) console.error(error instanceof Error ? error.stack ?? error.message : error);
      console.error(
        `\n${colour.red}!!! FAILED: ${title} [${id}] (exit code ${exitCode}, after ${seconds(Date.now() - started)}s)${colour.reset}`,
      );
      throw new StepFailure(`${id} failed`, exitCode);
    }
    console.log(`${colour.green}<== ok: ${title} (${seconds(Date.now() - started)}s)${colour.reset}`);
  }
  return count;
}

/**
 * The closing line.
 * @param {number} count
 * @param {number} elapsedMs
 */
export function allPassed(count, elapsedMs) {
  const total = seconds(elapsedMs);
  console.log(`\n${colour.green}All ${count} steps passed in ${Math.floor(total / 60)}m${String(total % 60).padStart(2, '0')}s.${colour.reset}`);
}
