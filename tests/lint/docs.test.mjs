// @ts-check
// The documentation's links and shape: every relative link and heading anchor in README.md, docs/ and the npm
// package's README resolves (remark-validate-links, offline), the README stays a front door (at most 200 lines), and
// no line of these pages is longer than 200 characters. The checks are also run on pages written for the run, which
// must fail them. Run with `node --test tests/lint/` from the repository root.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REMARK_CLI = path.join(root, 'node_modules', 'remark-cli', 'cli.js');
// By path, so pages outside the repository (the fixtures) load the same plugin.
const VALIDATE_LINKS = fileURLToPath(import.meta.resolve('remark-validate-links'));
/** The pages checked, relative to the repository's root; a folder stands for every Markdown file in it. */
const PAGES = ['README.md', 'docs', 'wasm/README.md'];
const README_MAX_LINES = 200;
const LINE_MAX_CHARS = 200;

/**
 * Runs remark with remark-validate-links over `pages` in `cwd`, warnings fatal. `repository: false`: links are checked
 * against the files on disk, not against a Git host, so no remote and no network is needed.
 * @param {string} cwd
 * @param {string[]} pages
 */
function checkLinks(cwd, pages) {
  const result = spawnSync(
    process.execPath,
    [REMARK_CLI, '--frail', '--quiet', '--no-stdout', '--no-color', '--no-config', '--use', `${VALIDATE_LINKS}=repository:false`, ...pages],
    { cwd, encoding: 'utf8' },
  );
  if (result.error) throw result.error;
  return { passed: result.status === 0, report: `${result.stdout}${result.stderr}` };
}

/** @param {string} dir */
function markdownFilesUnder(dir) {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(dir, name));
}

/**
 * The lines of `text` longer than `max` characters (code points), as `line N: length`.
 * @param {string} text
 * @param {number} max
 */
function longLines(text, max) {
  return text
    .split('\n')
    .map((line, index) => ({ number: index + 1, length: [...line].length }))
    .filter(({ length }) => length > max)
    .map(({ number, length }) => `line ${number}: ${length} characters`);
}

/** @param {string} text */
const lineCount = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

describe('the documentation', () => {
  it('has no relative link or anchor that does not resolve', () => {
    const { passed, report } = checkLinks(root, PAGES);
    assert.ok(passed, `broken links:\n${report}`);
  });

  it(`keeps README.md within ${README_MAX_LINES} lines`, () => {
    const lines = lineCount(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines: move the detail to a page in docs/`);
  });

  it(`has no line over ${LINE_MAX_CHARS} characters`, () => {
    const files = [path.join(root, 'README.md'), path.join(root, 'wasm', 'README.md'), ...markdownFilesUnder(path.join(root, 'docs'))];
    const problems = files.flatMap((file) =>
      longLines(fs.readFileSync(file, 'utf8'), LINE_MAX_CHARS).map((line) => `${path.relative(root, file)} ${line}`),
    );
    assert.deepEqual(problems, []);
  });
});

describe('the checks, on pages written for the run', () => {
  /** @type {string} */
  let dir;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'geocache-docs-links-'));
    fs.mkdirSync(path.join(dir, 'docs'));
    fs.writeFileSync(path.join(dir, 'docs', 'guide.md'), '# Guide\n\n## Running it\n\nBack to the [front door](../README.md#front-door).\n');
    fs.writeFileSync(path.join(dir, 'src.txt'), 'a file a page may link to\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /**
   * Writes README.md with `body` under a heading and checks it with the guide.
   * @param {string} body
   */
  const check = (body) => {
    fs.writeFileSync(path.join(dir, 'README.md'), `# Front door\n\n${body}\n`);
    return checkLinks(dir, ['README.md', 'docs']);
  };

  it('pass links to files, folders, headings of this page and headings of another page', () => {
    const { passed, report } = check('See [the guide](docs/guide.md#running-it), [docs](docs/), [a file](src.txt) and [here](#front-door).');
    assert.ok(passed, report);
  });

  it('fail a link to a file that does not exist', () => {
    const { passed, report } = check('See [the guide](docs/gide.md).');
    assert.equal(passed, false);
    assert.match(report, /Cannot find file `docs\/gide\.md`/);
  });

  it('fail an anchor that no heading of another page makes', () => {
    const { passed, report } = check('See [the guide](docs/guide.md#running).');
    assert.equal(passed, false);
    assert.match(report, /Cannot find heading for `#running` in `docs\/guide\.md`/);
  });

  it('fail an anchor that no heading of the same page makes', () => {
    const { passed, report } = check('See [above](#front).');
    assert.equal(passed, false);
    assert.match(report, /Cannot find heading for `#front`/);
  });

  it('count a README one line too long, and a line one character too long', () => {
    const tooLong = 'x'.repeat(README_MAX_LINES + 1).split('').join('\n') + '\n';
    assert.equal(lineCount(tooLong), README_MAX_LINES + 1);
    assert.deepEqual(longLines(`ok\n${'é'.repeat(LINE_MAX_CHARS)}\n${'é'.repeat(LINE_MAX_CHARS + 1)}\n`, LINE_MAX_CHARS), [
      `line 3: ${LINE_MAX_CHARS + 1} characters`,
    ]);
  });
});
