// @ts-check
// The app's import rules (eslint.config.js, "app/imports") catch what they are there for: files written into the
// app's own folders for the run, with one forbidden import each, fail ESLint with the expected rule, and the real
// source passes. Run with `node --test tests/lint/` from the repository root (needs the wasm package built, as
// the type-aware lint does).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Every fixture lives in a folder of this name, removed after the run; unique per run. */
const FIXTURE_DIR = `lint-fixture-${process.pid}`;
const NO_CYCLE = 'import-x/no-cycle';
const RESTRICTED = 'import-x/no-restricted-paths';

/**
 * Each fixture: where it is written (a folder of the app, the fixture folder inside it, or the folder itself with
 * `beside`, its name then starting with the fixture folder's), its source, and the import-x rules it must break
 * (none: it must pass), with a piece of the message that names the broken boundary.
 * @type {{ name: string, folder: string, file: string, beside?: boolean, source: string, breaks: string[], says?: string }[]}
 */
const FIXTURES = [
  {
    name: 'two modules of a feature that import each other',
    folder: 'features/logbook',
    file: 'cycle-a.ts',
    source: "import { b } from './cycle-b';\nexport const a = (): number => b() + 1;\n",
    breaks: [NO_CYCLE],
  },
  {
    name: 'the other half of the cycle',
    folder: 'features/logbook',
    file: 'cycle-b.ts',
    source: "import { a } from './cycle-a';\nexport const b = (): number => a() - 1;\n",
    breaks: [NO_CYCLE],
  },
  {
    name: 'a feature importing another feature through the alias',
    folder: 'features/teaser',
    file: 'cross-feature.ts',
    source: "import { useLogEntries } from '@/features/logbook/reads/use-log-entries';\nexport const hook = useLogEntries;\n",
    breaks: [RESTRICTED],
    says: 'Features do not import each other',
  },
  {
    name: 'a feature importing another feature by a relative path, from deeper down',
    folder: 'features/teaser/components',
    file: 'cross-feature-relative.ts',
    source: "import { Logbook } from '../../../logbook/components/logbook';\nexport const shown = Logbook;\n",
    breaks: [RESTRICTED],
    says: 'Features do not import each other',
  },
  {
    name: 'a feature importing from the app',
    folder: 'features/logbook',
    file: 'from-app.ts',
    source: "import { TRY_AGAIN } from '@/app/page-failure';\nexport const label = TRY_AGAIN;\n",
    breaks: [RESTRICTED],
    says: 'nothing imports from it',
  },
  {
    name: 'shared code importing a feature',
    folder: 'content',
    file: 'from-feature.ts',
    source: "import { Teaser } from '@/features/teaser/components/teaser';\nexport const shown = Teaser;\n",
    breaks: [RESTRICTED],
    says: 'Shared code must not depend on features or the app',
  },
  {
    name: 'a logbook component importing the wasm client',
    folder: 'features/logbook/components',
    file: 'wasm-client.ts',
    source: "import { createClient } from 'geocache-client';\nexport const make = createClient;\n",
    breaks: [RESTRICTED],
    says: 'Only src/features/logbook/api imports the wasm client',
  },
  {
    name: 'the app importing the wasm client by its path',
    folder: 'app',
    file: 'wasm-client-path.ts',
    source: "import { createClient } from '../../../../wasm/pkg-logbook';\nexport const make = createClient;\n",
    breaks: [RESTRICTED],
    says: 'Only src/features/logbook/api imports the wasm client',
  },
  {
    name: 'a logbook module importing the wasm client module statically',
    folder: 'features/logbook/components',
    file: 'static-client.ts',
    source: "import { getClient } from '../../api/client';\nexport const get = getClient;\n",
    breaks: [RESTRICTED],
    says: 'Load the wasm client through api/client-code.ts',
  },
  {
    name: 'the logbook api importing the live client statically, beside live-code.ts',
    folder: 'features/logbook/api',
    file: 'live-client.ts',
    source: "import { createRealtimeClient } from 'geocache-live';\nexport const make = createRealtimeClient;\n",
    breaks: [RESTRICTED],
    says: 'Load the live client through api/live-code.ts',
  },
  {
    name: 'the logbook api importing the live client lazily, not through live-code.ts',
    folder: 'features/logbook/api',
    file: 'lazy-live-client.ts',
    source: "export const load = () => import('geocache-live');\n",
    breaks: [RESTRICTED],
    says: 'Load the live client through api/live-code.ts',
  },
  {
    name: 'the live client\'s types, taken from live-code.ts (allowed)',
    folder: 'features/logbook/api',
    file: 'live-types.ts',
    source: "import type { RealtimeClient } from '../live-code';\nexport type Client = RealtimeClient;\n",
    breaks: [],
  },
  {
    name: 'a module at the root of the logbook feature, beside types.ts, importing the wasm client',
    folder: 'features/logbook',
    file: 'wasm-client.ts',
    beside: true,
    source: "import { createClient } from 'geocache-client';\nexport const make = createClient;\n",
    breaks: [RESTRICTED],
    says: 'Only src/features/logbook/api imports the wasm client',
  },
  {
    name: 'the live entries importing a call of the logbook api',
    folder: 'features/logbook/live',
    file: 'from-api.ts',
    source: "import { readNewer } from '../../api/read-newer';\nexport const read = readNewer;\n",
    breaks: [RESTRICTED],
    says: 'live/, status/ and device-copy/ do not import api/',
  },
  {
    name: 'the list status importing the logbook api through the alias, for a type',
    folder: 'features/logbook/status',
    file: 'from-api.ts',
    source: "import type { EntryPages } from '@/features/logbook/api/entry-pages';\nexport type Pages = EntryPages;\n",
    breaks: [RESTRICTED],
    says: 'live/, status/ and device-copy/ do not import api/',
  },
  {
    name: 'the device copy importing the logbook api',
    folder: 'features/logbook/device-copy',
    file: 'from-api.ts',
    source: "import { loadClientCode } from '../../api/client-code';\nexport const load = loadClientCode;\n",
    breaks: [RESTRICTED],
    says: 'live/, status/ and device-copy/ do not import api/',
  },
  {
    name: "the live entries naming the feature's shared types (allowed)",
    folder: 'features/logbook/live',
    file: 'shared-types.ts',
    source: "import type { EntryRows, KeptEntry } from '../../types';\nexport type Both = [EntryRows, KeptEntry];\n",
    breaks: [],
  },
  {
    name: 'the logbook api importing the wasm client (allowed)',
    folder: 'features/logbook/api',
    file: 'wasm-client.ts',
    source: "import { createClient } from 'geocache-client';\nexport const make = createClient;\n",
    breaks: [],
  },
  {
    name: 'the app composing a feature (allowed)',
    folder: 'app',
    file: 'compose.ts',
    source: "import { Teaser } from '@/features/teaser/components/teaser';\nexport const shown = Teaser;\n",
    breaks: [],
  },
];

const fixturePath = (/** @type {{ folder: string, file: string, beside?: boolean }} */ fixture) =>
  fixture.beside
    ? path.join(root, 'app/src', fixture.folder, `${FIXTURE_DIR}-${fixture.file}`)
    : path.join(root, 'app/src', fixture.folder, FIXTURE_DIR, fixture.file);
const fixtureDirs = [...new Set(FIXTURES.filter((fixture) => !fixture.beside).map((fixture) => path.dirname(fixturePath(fixture))))];
const fixtureFiles = FIXTURES.filter((fixture) => fixture.beside).map(fixturePath);

/** @type {Map<string, ESLint.LintResult>} */
const results = new Map();

before(async () => {
  assert.ok(
    fs.existsSync(path.join(root, 'wasm/pkg-logbook/package.json')) && fs.existsSync(path.join(root, 'wasm/pkg-live/package.json')),
    'the wasm package is not built: run `bash scripts/test.sh build-wasm` first',
  );
  for (const fixture of FIXTURES) {
    fs.mkdirSync(path.dirname(fixturePath(fixture)), { recursive: true });
    fs.writeFileSync(fixturePath(fixture), fixture.source);
  }
  const eslint = new ESLint({ cwd: root });
  for (const result of await eslint.lintFiles(FIXTURES.map(fixturePath))) results.set(result.filePath, result);
});

after(() => {
  for (const dir of fixtureDirs) fs.rmSync(dir, { recursive: true, force: true });
  for (const file of fixtureFiles) fs.rmSync(file, { force: true });
});

describe('the import rules', () => {
  for (const fixture of FIXTURES) {
    const verdict = fixture.breaks.length ? `fails with ${fixture.breaks.join(', ')}` : 'passes';
    it(`${verdict}: ${fixture.name}`, () => {
      const result = results.get(fixturePath(fixture));
      assert.ok(result, `ESLint did not lint ${fixturePath(fixture)}`);
      // Only the import rules: the fixtures are not meant to satisfy every other rule of the repository.
      const broken = result.messages.filter((message) => message.ruleId?.startsWith('import-x/'));
      assert.deepEqual(
        [...new Set(broken.map((message) => message.ruleId))],
        fixture.breaks,
        broken.map((message) => message.message).join('\n'),
      );
      for (const message of broken) assert.equal(message.severity, 2, 'import rules are errors, not warnings');
      if (fixture.says) assert.match(broken[0]?.message ?? '', new RegExp(escape(fixture.says)));
    });
  }
});

describe('the real app source', () => {
  it('passes ESLint, the import rules included', async () => {
    const eslint = new ESLint({ cwd: root, ignorePatterns: [`**/${FIXTURE_DIR}/**`, `**/${FIXTURE_DIR}-*`] });
    const failing = (await eslint.lintFiles(['app/src'])).filter((result) => result.errorCount > 0);
    const report = failing.flatMap((result) =>
      result.messages.map((message) => `${path.relative(root, result.filePath)}: ${message.ruleId} ${message.message}`),
    );
    assert.deepEqual(report, []);
  });
});

// Last: the type checker ESLint shares across a run keeps the text given here for types.ts, in place of the file's.
describe("the logbook's types.ts", () => {
  const TYPES = path.join(root, 'app/src/features/logbook/types.ts');
  /** The rules a source linted as types.ts breaks (ESLint reads the text given, not the file). */
  const broken = async (/** @type {string} */ source) => {
    const [result] = await new ESLint({ cwd: root }).lintText(source, { filePath: TYPES });
    return [...new Set((result?.messages ?? []).map((message) => message.ruleId))];
  };

  it("may name the wasm client's types", async () => {
    assert.deepEqual(await broken("import type { EntryList } from 'geocache-client';\nexport type Rows = Pick<EntryList, 'length'>;\n"), []);
  });

  it('holds no code: a value import or export, or a statement, fails', async () => {
    assert.deepEqual(await broken("import { createClient } from 'geocache-client';\nexport type Make = typeof createClient;\n"), ['no-restricted-syntax']);
    assert.deepEqual(await broken('export const LIMIT = 50;\n'), ['no-restricted-syntax']);
    assert.deepEqual(await broken("export { HEAD_ENTRIES } from './device-copy/copy-database';\n"), ['no-restricted-syntax']);
  });
});

function escape(/** @type {string} */ text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
