// @ts-check
// `node scripts/test.mjs STEP...`: a suite named alone first gets the builds it runs against, so it never tests what
// was built before a change; and two wasm builds started together wait for each other instead of writing the same
// folders at once.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { chooseSteps } from '../../scripts/lib/step-runner.mjs';
import { repoRoot } from '../../scripts/lib/repo.mjs';

const steps = [
  { id: 'setup', always: true },
  { id: 'fmt' },
  { id: 'build-wasm' },
  { id: 'build-emulator' },
  { id: 'e2e', needs: ['build-wasm', 'build-emulator'] },
  { id: 'typecheck', needs: ['build-wasm'] },
  { id: 'eslint' },
];
const ids = (/** @type {string[]} */ selected) => chooseSteps(steps, selected).map(({ id }) => id);

test('no step named: every step, in order', () => {
  assert.deepEqual(ids([]), steps.map(({ id }) => id));
});

test('a suite named alone runs after the builds it needs, in the steps\' order', () => {
  assert.deepEqual(ids(['e2e']), ['setup', 'build-wasm', 'build-emulator', 'e2e']);
  assert.deepEqual(ids(['typecheck', 'fmt']), ['setup', 'fmt', 'build-wasm', 'typecheck']);
  assert.deepEqual(ids(['eslint']), ['setup', 'eslint']);
});

test('a build named alone runs alone', () => {
  assert.deepEqual(ids(['build-emulator']), ['setup', 'build-emulator']);
});

test('a wasm build waits while another holds the build lock, then finds the packages built', { skip: spawnSync('flock', ['--version']).status !== 0 && 'no flock on this machine' }, async () => {
  // The production-build step runs after build-wasm: the packages are up to date, so the build only checks them.
  const holder = spawn('flock', ['target/.build-wasm.lock', 'sh', '-c', 'echo held; read line'], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    await once(/** @type {import('node:stream').Readable} */ (holder.stdout), 'data');
    const build = spawn('bash', ['scripts/build-wasm.sh'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    build.stdout.on('data', (chunk) => (output += chunk));
    build.stderr.on('data', (chunk) => (output += chunk));
    const exited = once(build, 'exit');
    // Whatever the machine's speed, a build that ignored the lock would have said so by the time the lock is let go:
    // the check it makes once it holds the lock is the only thing it prints.
    const settled = await Promise.race([exited.then(() => 'exited'), new Promise((resolve) => setTimeout(resolve, 3000, 'waiting'))]);
    assert.equal(settled, 'waiting', `the build ran while the lock was held:\n${output}`);
    assert.equal(output, '');
    holder.stdin?.end('\n');
    const [code] = await exited;
    assert.equal(code, 0, output);
    assert.match(output, /wasm packages are up to date/);
  } finally {
    holder.kill();
  }
});
