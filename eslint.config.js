// @ts-check
// One flat config for the whole repository: the React app (type-aware), the Playwright/Node tests and
// the Node scripts. CommonJS because the root package.json does not declare "type": "module".
const js = require('@eslint/js');
const { defineConfig, globalIgnores } = require('eslint/config');
const react = require('eslint-plugin-react');
const reactHooks = require('eslint-plugin-react-hooks');
const globals = require('globals');
const tseslint = require('typescript-eslint');

const TS = '**/*.{ts,tsx,mts,cts}';
const JS = '**/*.{js,mjs,cjs}';

// ---- Import boundaries of the app (bulletproof-react's import/no-restricted-paths, with eslint's own rule) ----
// no-restricted-imports takes the options of the last matching block, so every block below states
// its complete list.

const wasmOnlyInApi = {
  name: 'geocache-client',
  message: 'Only src/features/logbook/api may import the wasm client; use its fetchers and hooks.',
};
const noWasmPkgPath = {
  regex: '(^|/)wasm/pkg(-logbook)?(/|$)',
  message: 'Import the wasm package as "geocache-client" (from features/logbook/api only), not by path.',
};
const noUpwardIntoApp = {
  regex: '^@/app(/|$)',
  message: 'Only src/app composes features; nothing imports from it.',
};
const noFeatureViaAlias = {
  regex: '^@/features(/|$)',
  message: 'Features do not import each other; inside a feature use relative imports.',
};
const noDetour = {
  regex: '(^|/)[^./][^/]*/\\.\\.(/|$)|^\\./\\.\\.',
  message: 'Write relative imports without detours ("a/../b", "./..") so the boundary rules can read them.',
};
/** A relative import from a file `depth` folders below its feature's root that climbs out of the feature. */
const leavesFeature = (depth) => ({
  regex: `^(\\.\\./){${depth},}`,
  message: 'Features do not import each other or the app; shared code is imported through "@/".',
});
const noSharedToFeatures = {
  regex: '^(\\.\\./)+(app|features)(/|$)|^@/(app|features)(/|$)',
  message: 'Shared code (config, content, testing, ...) must not depend on features or the app.',
};

// ---- Text is never HTML: no API that parses a string as markup, anywhere in the repository ----
// (The prerendered teaser is React's renderToStaticMarkup written into index.html by a build-time string
// transform, app/build/prerender-teaser.ts: no DOM sink, so nothing below needs an exception for it.)

const NO_HTML = 'Text is never HTML: build elements (React, or createElement + textContent) instead of parsing markup.';

/** no-restricted-syntax selectors: markup sinks the property rule and react/no-danger do not see. */
const htmlSinkSyntax = [
  {
    // React.createElement / cloneElement props, spreads: what react/no-danger does not see.
    selector: "Property[key.name='dangerouslySetInnerHTML'], Property[key.value='dangerouslySetInnerHTML']",
    message: NO_HTML,
  },
  { selector: "JSXAttribute[name.name=/^srcdoc$/i]", message: `${NO_HTML} (An iframe's srcdoc is parsed as HTML.)` },
  {
    // window.document.write(...), globalThis.document.writeln(...)
    selector: "MemberExpression[object.property.name='document'][property.name=/^write(ln)?$/]",
    message: NO_HTML,
  },
];

const htmlSinkProperties = [
  ...['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'createContextualFragment', 'setHTMLUnsafe', 'parseHTMLUnsafe'].map(
    (property) => ({ property, message: NO_HTML }),
  ),
  { object: 'document', property: 'write', message: NO_HTML },
  { object: 'document', property: 'writeln', message: NO_HTML },
];

const noHtmlSinks = {
  name: 'all/text-is-never-html',
  files: [JS, TS],
  plugins: { react },
  rules: {
    // On every component, not only DOM elements: a component that forwards the prop is a sink too.
    'react/no-danger': ['error', { customComponentNames: ['*'] }],
    'no-restricted-properties': ['error', ...htmlSinkProperties],
    'no-restricted-syntax': ['error', ...htmlSinkSyntax],
  },
};

const restrict = (paths, patterns) => ({
  'no-restricted-imports': ['error', { paths, patterns }],
});

const FEATURE_DEPTHS = [1, 2, 3, 4, 5];
const featureFiles = (depth, under = '*') =>
  `app/src/features/${under}/${'*/'.repeat(depth - 1)}*.{ts,tsx}`;

const appBoundaries = [
  {
    name: 'app/boundaries/all',
    files: ['app/src/**/*.{ts,tsx}'],
    rules: restrict([wasmOnlyInApi], [noWasmPkgPath, noDetour]),
  },
  {
    name: 'app/boundaries/shared',
    files: ['app/src/**/*.{ts,tsx}'],
    ignores: ['app/src/app/**', 'app/src/features/**'],
    rules: restrict([wasmOnlyInApi], [noWasmPkgPath, noDetour, noSharedToFeatures]),
  },
  ...FEATURE_DEPTHS.flatMap((depth) => {
    const patterns = [noWasmPkgPath, noDetour, noUpwardIntoApp, noFeatureViaAlias, leavesFeature(depth)];
    return [
      {
        name: `app/boundaries/features/depth-${depth}`,
        files: [featureFiles(depth)],
        rules: restrict([wasmOnlyInApi], patterns),
      },
      {
        // The logbook's api folder is the one place that talks to the wasm client.
        name: `app/boundaries/features/logbook-api/depth-${depth}`,
        files: [featureFiles(depth, 'logbook')],
        ignores: depth === 1 ? ['**'] : ['app/src/features/logbook/!(api)/**'],
        rules: restrict([], patterns),
      },
    ];
  }),
  {
    name: 'app/boundaries/features/too-deep',
    files: [`app/src/features/*/${'*/'.repeat(FEATURE_DEPTHS.length)}**/*.{ts,tsx}`],
    rules: {
      // States the whole list: a later block's options replace an earlier one's (the HTML sinks above).
      'no-restricted-syntax': [
        'error',
        { selector: 'Program', message: `Keep features at most ${FEATURE_DEPTHS.length} folders deep.` },
        ...htmlSinkSyntax,
      ],
    },
  },
];

module.exports = defineConfig(
  globalIgnores([
    '**/node_modules/',
    '**/dist/',
    '**/target/',
    'wasm/pkg/',
    'wasm/pkg-logbook/',
    '.data/',
    'tests/output/',
    'tests/test-results/',
    'tests/playwright-report/',
  ]),

  { name: 'js/recommended', files: [JS, TS], ...js.configs.recommended },

  // TypeScript, type-aware: each file is checked with the tsconfig that owns it (app/, tests/).
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: [TS] })),
  {
    name: 'typescript/project',
    files: [TS],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },

  // The React app.
  {
    name: 'app/react',
    files: ['app/src/**/*.{ts,tsx}'],
    ...react.configs.flat.recommended,
    languageOptions: {
      ...react.configs.flat.recommended.languageOptions,
      globals: globals.browser,
    },
    settings: { react: { version: 'detect' } },
  },
  { name: 'app/react-jsx-runtime', files: ['app/src/**/*.{ts,tsx}'], ...react.configs.flat['jsx-runtime'] },
  { name: 'app/react-hooks', files: ['app/src/**/*.{ts,tsx}'], ...reactHooks.configs.flat['recommended-latest'] },
  noHtmlSinks,
  ...appBoundaries,

  // Node: tool configs, scripts and tests (the Playwright specs also run in Node).
  {
    name: 'node',
    files: [JS, 'app/*.ts', 'tests/**/*.{ts,mts,cts}', 'scripts/**/*.{ts,mts,cts}'],
    languageOptions: { globals: globals.node },
  },
  {
    name: 'commonjs',
    files: ['**/*.cjs', 'eslint.config.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
