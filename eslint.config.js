// @ts-check
// One flat config for the whole repository: the React app (type-aware), the Playwright/Node tests and
// the Node scripts. CommonJS because the root package.json does not declare "type": "module".
const fs = require('node:fs');
const path = require('node:path');
const js = require('@eslint/js');
const { defineConfig, globalIgnores } = require('eslint/config');
const react = require('eslint-plugin-react');
const reactHooks = require('eslint-plugin-react-hooks');
const { createTypeScriptImportResolver } = require('eslint-import-resolver-typescript');
const importX = require('eslint-plugin-import-x');
const globals = require('globals');
const tseslint = require('typescript-eslint');

const TS = '**/*.{ts,tsx,mts,cts}';
const JS = '**/*.{js,mjs,cjs}';

// ---- Import boundaries of the app (bulletproof-react's no-restricted-paths zones, on resolved paths) ----
// import-x resolves every import (the "@/" alias, "geocache-client" and "geocache-live" through app/tsconfig.app.json's paths)
// before comparing it with the zones, so an alias, a relative path or a detour reach the same file and the
// same verdict, however deep the importing file is.

const APP_SRC = path.join(__dirname, 'app/src');
/** The folders directly under `dir`: each feature, each shared area. Read when the config loads. */
const foldersIn = (dir) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
const FEATURES = foldersIn(path.join(APP_SRC, 'features'));
/** Code every part of the page may use (components, config, content, testing): it depends on no feature. */
const SHARED = foldersIn(APP_SRC).filter((name) => name !== 'app' && name !== 'features' && name !== 'sw');

const importZones = [
  {
    target: './app/src/features',
    from: './app/src/app',
    message: 'Only src/app composes features; nothing imports from it.',
  },
  ...FEATURES.map((feature) => ({
    target: `./app/src/features/${feature}`,
    from: './app/src/features',
    except: [`./${feature}`],
    message: 'Features do not import each other: move what both need to shared code (src/components, ...).',
  })),
  {
    // The service worker, like src/app, composes features (the logbook's Background Sync); nothing imports it.
    target: ['./app/src/*.{ts,tsx}', './app/src/!(sw)/**'],
    from: './app/src/sw',
    message: 'The service worker is its own entry point; nothing imports from src/sw.',
  },
  {
    target: './app/src/sw',
    from: './app/src/app',
    message: 'Only src/app composes the page; the service worker does not import it.',
  },
  ...SHARED.map((shared) => ({
    target: `./app/src/${shared}`,
    from: ['./app/src/features', './app/src/app'],
    message: 'Shared code must not depend on features or the app.',
  })),
  {
    // The logbook's api folder is the one place that talks to the wasm client (imported as "geocache-client";
    // it resolves into wasm/). The feature's types.ts names the client's types for the rest of the feature (it holds
    // types only: see typesOnly below), and the test fakes in src/testing stand in for that client, so they name them too.
    target: [
      './app/src/*.{ts,tsx}',
      './app/src/!(features|testing)/**',
      './app/src/features/!(logbook|owner)/**',
      './app/src/features/logbook/!(types).{ts,tsx}',
      './app/src/features/logbook/!(api)/**',
      './app/src/features/owner/!(types).{ts,tsx}',
      './app/src/features/owner/!(api)/**',
    ],
    from: './wasm',
    message:
      'Only src/features/logbook/api imports the wasm client ("geocache-client"), and only src/features/owner/api the owner\'s ("geocache-owner"); use their calls, and types.ts for their types.',
  },
  {
    // The owner's page has a build of its own (wasm/pkg-owner: auth, which the visitor's page never holds).
    target: './app/src/features/logbook',
    from: './wasm/pkg-owner',
    message: 'The visitor\'s page never loads the owner\'s client ("geocache-owner"): it holds auth.',
  },
  {
    // Reading, keeping and showing entries depends on what the client returns, not on the client: api/ calls it, and
    // whoever composes these folders (reads/, components/) hands them those calls.
    target: ['./app/src/features/logbook/live', './app/src/features/logbook/status', './app/src/features/logbook/device-copy'],
    from: './app/src/features/logbook/api',
    message: 'live/, status/ and device-copy/ do not import api/: take the call as an argument, and shared types from types.ts.',
  },
  {
    // Importing api/client.ts fetches and compiles the .wasm before the importer runs. Only client-code.ts loads it,
    // lazily, so the entries kept on the device paint and the form shows while the wasm downloads.
    target: './app/src/features/logbook/**/!(client-code|*.test).{ts,tsx}',
    from: './app/src/features/logbook/api/client.ts',
    message: 'Load the wasm client through api/client-code.ts (loadClientCode), never by a static import of api/client.',
  },
  {
    // The live entries' client (wasm/pkg-live, "geocache-live") is a second .wasm that a first visit must not
    // download before its first entries are painted. Only live-code.ts imports it, dynamically (types included:
    // live-code.ts re-exports them).
    target: './app/src/**/!(live-code).{ts,tsx}',
    from: './wasm/pkg-live',
    message: 'Load the live client through api/live-code.ts (loadLiveCode), never by importing "geocache-live".',
  },
];

const appImports = {
  name: 'app/imports',
  files: ['app/src/**/*.{ts,tsx}'],
  plugins: { 'import-x': importX },
  settings: {
    // Which files import-x reads, with which parser (its TypeScript preset's): without them no-cycle never
    // reads a TypeScript module's own imports, and so never finds a cycle.
    'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
    'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
    'import-x/resolver-next': [createTypeScriptImportResolver({ project: path.join(__dirname, 'app/tsconfig.app.json') })],
  },
  rules: {
    // Modules that import each other (directly or round a longer loop, dynamic imports included) cannot be read,
    // tested or loaded one at a time. Type-only imports are erased by the build and not followed.
    'import-x/no-cycle': ['error', { ignoreExternal: true }],
    'import-x/no-restricted-paths': ['error', { basePath: __dirname, zones: importZones }],
  },
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

// ---- The logbook's types.ts holds types only: it may name the wasm client's types because naming them loads nothing ----

const typesOnly = {
  name: 'app/logbook-types-only',
  files: ['app/src/features/logbook/types.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      ...htmlSinkSyntax,
      ...['ImportDeclaration[importKind="value"]', 'ExportNamedDeclaration[exportKind="value"]', 'ExportDefaultDeclaration', 'ExportAllDeclaration[exportKind="value"]'].map(
        (selector) => ({ selector, message: 'types.ts holds types only: import and export with `import type` and `export type`, and keep code elsewhere.' }),
      ),
      {
        selector: ':matches(Program > ExpressionStatement, Program > VariableDeclaration, Program > FunctionDeclaration, Program > ClassDeclaration)',
        message: 'types.ts holds types only: keep code elsewhere.',
      },
    ],
  },
};

module.exports = defineConfig(
  globalIgnores([
    '**/node_modules/',
    '**/dist/',
    '**/target/',
    'wasm/pkg/',
    'wasm/pkg-logbook/',
    'wasm/pkg-live/',
    'wasm/pkg-owner/',
    'wasm/pkg-bench/',
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
  appImports,
  typesOnly,

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
