// @ts-check
// `npm test`'s steps: a banner naming each, its output, its time, a table of every step's time at the end, and a stop
// at the first failure. Most steps run one after another (they build or drive Chromium, and the machine's cores
// are the limit); a step marked `beside` starts and the run goes on with the next steps while it runs, for suites
// that mostly wait. Its output is kept and printed in one piece when it ends, under its own banner, so no two
// steps' lines interleave and a failure names its step.
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import os from 'node:os';
import { environmentWith, exited, isRunning } from './processes.mjs';

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

/** Output of a step that runs beside others, kept until it ends; none (the terminal) for the others. */
const keptOutput = new AsyncLocalStorage();

/** @returns {Buffer[] | undefined} */
const currentOutput = () => keptOutput.getStore();

/** The times of the parts of the step running (the commands it runs side by side), for the table at the end. */
const stepParts = new AsyncLocalStorage();

/**
 * Writes to the step's output: the terminal, or the kept output of a step run beside others.
 * @param {string | Buffer} text
 */
function write(text) {
  const output = currentOutput();
  if (output) output.push(Buffer.from(text));
  else process.stdout.write(text);
}

/**
 * A line of a step's own (not a command's): kept with its output when it runs beside others.
 * @param {string} line
 */
export function say(line) {
  write(`${line}\n`);
}

/** Every command a step started that is still running, each the leader of its own process group. */
const running = new Set();

/**
 * Stops every command still running, with everything it started (its process group): a step that failed beside
 * the others ends the run at once, as does an interrupt.
 * @param {NodeJS.Signals} [signal]
 */
export function stopCommands(signal = 'SIGTERM') {
  for (const child of running) {
    if (child.pid === undefined || !isRunning(child)) continue;
    try {
      process.kill(-child.pid, signal);
    } catch (error) {
      // ESRCH: it exited meanwhile.
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ESRCH') throw error;
    }
  }
}

/**
 * Runs a command, its output to the terminal (or kept, for a step run beside others); resolves when it exits 0,
 * rejects with a StepFailure otherwise (a signal counts as 128 + its number, as in a shell). Each command leads a
 * process group of its own, so stopping it stops what it started (rustc, Chromium, the servers of a test).
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: Record<string, string | undefined>, cwd?: string, label?: string }} [options] label: names the
 *   command in a failure
 */
export async function run(command, args, { env = {}, cwd, label } = {}) {
  const output = currentOutput();
  const child = spawn(command, args, {
    stdio: ['ignore', output ? 'pipe' : 'inherit', output ? 'pipe' : 'inherit'],
    env: environmentWith(env),
    cwd,
    detached: true,
  });
  running.add(child);
  child.stdout?.on('data', (chunk) => output?.push(chunk));
  child.stderr?.on('data', (chunk) => output?.push(chunk));
  const spawnError = new Promise((resolve) => child.once('error', resolve));
  // 'close' comes after the output streams have ended, so every byte is kept.
  const closed = output ? new Promise((resolve) => child.once('close', resolve)) : Promise.resolve();
  const outcome = await Promise.race([exited(child), spawnError]);
  running.delete(child);
  if (outcome instanceof Error) throw new StepFailure(`${command}: ${outcome.message}`, 127);
  await closed;
  const { code, signal } = /** @type {import('./processes.mjs').ExitStatus} */ (outcome);
  if (code === 0) return;
  const exitCode = code ?? 128 + (signal ? os.constants.signals[signal] : 0);
  throw new StepFailure(`${label ? `${label}: ` : ''}${[command, ...args].join(' ')} exited with ${code ?? signal}`, exitCode);
}

/** @param {number} ms */
const seconds = (ms) => Math.round(ms / 1000);

/** @param {number} ms */
function minutes(ms) {
  const total = seconds(ms);
  return `${Math.floor(total / 60)}m${String(total % 60).padStart(2, '0')}s`;
}

/** @typedef {{ name: string, ms: number, note: string, parts?: StepTime[] }} StepTime */

/** Each step's time, and each part of a step that runs commands side by side, for the table at the end. */
const times = /** @type {StepTime[]} */ ([]);

/**
 * Runs commands side by side, for suites that do not fight over ports and spend most of their time waiting: the
 * first one's output is shown as it comes, each other's once it has exited, under a line naming it, so no two
 * outputs interleave. Waits for all of them; rejects with the first failure (in the order given).
 * @param {{ label: string, command: string, args: string[], env?: Record<string, string | undefined> }[]} commands
 */
export async function runSideBySide(commands) {
  const outcomes = await Promise.allSettled(
    commands.map(async ({ label, command, args, env = {} }, index) => {
      const started = Date.now();
      /** @type {Buffer[]} */
      const kept = [];
      try {
        if (index === 0) await run(command, args, { env, label });
        else await keptOutput.run(kept, () => run(command, args, { env, label }));
      } finally {
        if (index > 0) {
          write(`\n${colour.bold}--- ${label} (run beside the above) ---${colour.reset}\n`);
          write(Buffer.concat(kept));
        }
        /** @type {StepTime[] | undefined} */ (stepParts.getStore())?.push({ name: label, ms: Date.now() - started, note: 'side by side' });
      }
    }),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * @typedef {object} Step
 * @property {string} id
 * @property {string} title
 * @property {boolean} [always]  run even when steps are named
 * @property {boolean} [beside]  start it and go on with the next steps, unless it is the last one; it mostly waits
 *   (for servers, a browser)
 * @property {string[]} [needs]  steps that build what it tests: run before it when it is named alone, so a step
 *   named after a change never tests the builds from before it
 * @property {() => Promise<void>} action
 */

/** @param {unknown} error */
function exitCodeOf(error) {
  if (error instanceof StepFailure) return error.exitCode;
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  return 1;
}

/**
 * @param {Step} step
 * @param {number} started
 * @param {number} exitCode
 */
function failureBanner({ id, title }, started, exitCode) {
  return `\n${colour.red}!!! FAILED: ${title} [${id}] (exit code ${exitCode}, after ${seconds(Date.now() - started)}s)${colour.reset}\n`;
}

/**
 * The steps a run takes, in their order: all when `selected` is empty; else the ones it names, the ones they need,
 * and the `always` ones.
 * @template {Pick<Step, 'id' | 'always' | 'needs'>} S
 * @param {S[]} steps
 * @param {string[]} selected
 * @returns {S[]}
 */
export function chooseSteps(steps, selected) {
  if (selected.length === 0) return steps;
  const needed = new Set(selected);
  for (const step of steps) if (needed.has(step.id)) for (const need of step.needs ?? []) needed.add(need);
  return steps.filter(({ id, always }) => always || needed.has(id));
}

/**
 * Runs steps in order (the ones `selected` names and the ones they need, all when it is empty; `always` steps
 * regardless), stopping at the first failure, of a step in the foreground or of one running beside; resolves to the
 * number run.
 * @param {Step[]} steps
 * @param {string[]} selected
 */
export async function runSteps(steps, selected) {
  const chosen = chooseSteps(steps, selected);
  /** The first failure of a step running beside the others: ends the foreground step at once. */
  /** @type {(failure: StepFailure) => void} */
  let failBeside = () => {};
  /** @type {Promise<StepFailure>} */
  const besideFailed = new Promise((resolve) => {
    failBeside = resolve;
  });
  /** Outputs of steps that ran beside, printed between foreground steps. */
  const finished = /** @type {string[]} */ ([]);
  const flush = () => {
    for (const text of finished.splice(0)) process.stdout.write(text);
  };
  /** @type {Promise<void>[]} */
  const besides = [];
  let besideRunning = 0;
  let failure = /** @type {StepFailure | undefined} */ (undefined);

  /** @param {Step} step */
  const startBeside = (step) => {
    const started = Date.now();
    /** @type {Buffer[]} */
    const kept = [];
    console.log(`\n${colour.bold}==> ${step.title} [${step.id}] started; runs beside the next steps, its output follows when it ends${colour.reset}`);
    /** @type {StepTime[]} */
    const parts = [];
    return keptOutput
      .run(kept, () => stepParts.run(parts, () => step.action()))
      .then(
        () => {
          times.push({ name: step.id, ms: Date.now() - started, note: 'beside', parts });
          finished.push(
            `\n${colour.bold}==> ${step.title} [${step.id}] (ran beside)${colour.reset}\n${Buffer.concat(kept).toString()}` +
              `${colour.green}<== ok: ${step.title} (${seconds(Date.now() - started)}s)${colour.reset}\n`,
          );
        },
        (/** @type {unknown} */ error) => {
          if (failure) {
            // Stopped because another step failed first.
            times.push({ name: step.id, ms: Date.now() - started, note: 'beside, stopped', parts });
            console.error(`${colour.red}!!! stopped: ${step.title} [${step.id}], after ${seconds(Date.now() - started)}s${colour.reset}`);
            return;
          }
          const exitCode = exitCodeOf(error);
          times.push({ name: step.id, ms: Date.now() - started, note: 'beside, failed', parts });
          failure = new StepFailure(`${step.id} failed`, exitCode);
          flush();
          process.stdout.write(`\n${colour.bold}==> ${step.title} [${step.id}] (ran beside)${colour.reset}\n${Buffer.concat(kept).toString()}`);
          console.error(failureBanner(step, started, exitCode));
          failBeside(failure);
        },
      );
  };

  for (const [index, step] of chosen.entries()) {
    if (failure) break;
    // The last step has nothing to run beside: it runs in the foreground, its output shown as it comes.
    if (step.beside && index < chosen.length - 1) {
      besideRunning += 1;
      besides.push(startBeside(step).finally(() => (besideRunning -= 1)));
      continue;
    }
    console.log(`\n${colour.bold}==> ${step.title} [${step.id}]${colour.reset}`);
    const started = Date.now();
    /** @type {StepTime[]} */
    const parts = [];
    const action = stepParts.run(parts, () => step.action());
    const outcome = await Promise.race([action.then(() => 'ok', (/** @type {unknown} */ error) => error), besideFailed]);
    if (outcome instanceof StepFailure && outcome === failure) {
      // A step beside failed: this one is stopped with everything it started, and the run ends with that failure.
      stopCommands();
      await action.catch(() => undefined);
      times.push({ name: step.id, ms: Date.now() - started, note: 'stopped', parts });
      console.error(`${colour.red}!!! stopped: ${step.title} [${step.id}], after ${seconds(Date.now() - started)}s${colour.reset}`);
      break;
    }
    times.push({ name: step.id, ms: Date.now() - started, note: outcome === 'ok' ? '' : 'failed', parts });
    if (outcome !== 'ok') {
      const exitCode = exitCodeOf(outcome);
      console.error(failureBanner(step, started, exitCode));
      failure ??= new StepFailure(`${step.id} failed`, exitCode);
      stopCommands();
      break;
    }
    console.log(`${colour.green}<== ok: ${step.title} (${seconds(Date.now() - started)}s)${colour.reset}`);
    flush();
  }
  if (!failure && besideRunning > 0) {
    console.log(`\n${colour.bold}... waiting for the steps running beside${colour.reset}`);
    await Promise.race([Promise.all(besides), besideFailed]);
  }
  if (failure) {
    stopCommands();
    await Promise.allSettled(besides);
    flush();
    printTimes();
    throw failure;
  }
  flush();
  printTimes();
  return chosen.length;
}

/** The table of step times: where a run's minutes went. */
function printTimes() {
  if (times.length === 0) return;
  console.log(`\n${colour.bold}Step times${colour.reset}`);
  const rows = times.flatMap(({ parts = [], ...step }) => [step, ...parts.map((part) => ({ ...part, name: `  ${part.name}` }))]);
  const width = Math.max(...rows.map(({ name }) => name.length));
  for (const { name, ms, note } of rows) console.log(`  ${name.padEnd(width)}  ${minutes(ms).padStart(7)}${note ? `  (${note})` : ''}`);
}

/**
 * The closing line.
 * @param {number} count
 * @param {number} elapsedMs
 */
export function allPassed(count, elapsedMs) {
  console.log(`\n${colour.green}All ${count} steps passed in ${minutes(elapsedMs)}.${colour.reset}`);
}
