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
 * Each fixture: where it is written (a folder of the app, the fixture folder inside it), its source, and the
 * import-x rules it must break (none: it must pass), with a piece of the message that names the broken boundary.
 * @type {{ name: string, folder: string, file: string, source: string, breaks: string[], says?: string }[]}
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
    source: "import { useLogEntries } from '@/features/logbook/api/use-log-entries';\nexport const hook = useLogEntries;\n",
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
    folder: 'features/logbook/live',
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

const fixturePath = (/** @type {{ folder: string, file: string }} */ fixture) =>
  path.join(root, 'app/src', fixture.folder, FIXTURE_DIR, fixture.file);
const fixtureDirs = [...new Set(FIXTURES.map((fixture) => path.dirname(fixturePath(fixture))))];

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
    const eslint = new ESLint({ cwd: root, ignorePatterns: [`**/${FIXTURE_DIR}/**`] });
    const failing = (await eslint.lintFiles(['app/src'])).filter((result) => result.errorCount > 0);
    const report = failing.flatMap((result) =>
      result.messages.map((message) => `${path.relative(root, result.filePath)}: ${message.ruleId} ${message.message}`),
    );
    assert.deepEqual(report, []);
  });
});

function escape(/** @type {string} */ text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
