// @ts-check
// The production build: `npm run build` from its real entry point, and what it writes: hashed assets, a
// Content-Security-Policy meta tag for the configured backend, the wasm client reachable only from the lazily
// loaded logbook, and the client's own configuration errors printed as build warnings.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { environmentWith, exited, forEachLine } from '../../scripts/lib/processes.mjs';
import { repoRoot } from '../../scripts/lib/repo.mjs';
import { buildApp } from '../../scripts/lib/vite.mjs';

const BACKEND = 'https://abcdefghijklmnopqrst.supabase.co';
/** The backend's origin as a WebSocket (the live logbook): under CSP 3 an https:// source does not match wss://. */
const BACKEND_SOCKET = 'wss://abcdefghijklmnopqrst.supabase.co';
const ANON_KEY = 'eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.c2lnbmF0dXJl';
const OPEN_WARNING = 'geocache: the logbook is open (VITE_LOGBOOK_OPEN=true) but its client rejects the configuration: ';

/** @type {string} */
let scratch;

before(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'geocache-build-test-'));
});

after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/**
 * The policy of a built index.html as a map of directive to sources.
 * @param {string} html
 */
function policyOf(html) {
  const match = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html);
  assert.ok(match, 'index.html has a Content-Security-Policy meta tag');
  return Object.fromEntries(
    (match[1] ?? '').split(';').map((directive) => {
      const [name = '', ...sources] = directive.trim().split(/\s+/);
      return [name, sources];
    }),
  );
}

/**
 * Runs `npm run build` (node scripts/build.mjs) with extra vite arguments; resolves to its exit code and output.
 * @param {string[]} args
 * @param {Record<string, string | undefined>} env
 */
async function npmRunBuild(args, env) {
  const child = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'build.mjs'), ...args], {
    cwd: repoRoot,
    env: environmentWith({ NO_COLOR: '1', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  /** @type {string[]} */
  const output = [];
  forEachLine(child.stdout, (line) => output.push(line));
  forEachLine(child.stderr, (line) => output.push(line));
  const { code } = await exited(child);
  return { code, output };
}

describe('npm run build with a hosted project configured and the logbook open', () => {
  /** @type {string} */
  let outDir;
  /** @type {string[]} */
  let output;
  /** @type {string} */
  let html;
  /** @type {Record<string, { file: string, imports?: string[], dynamicImports?: string[], css?: string[], assets?: string[], isEntry?: boolean }>} */
  let manifest;

  before(async () => {
    outDir = path.join(scratch, 'site');
    const result = await npmRunBuild(['--outDir', outDir, '--manifest'], {
      VITE_SUPABASE_URL: `${BACKEND}/`,
      VITE_SUPABASE_ANON_KEY: ANON_KEY,
      VITE_LOGBOOK_OPEN: 'true',
    });
    output = result.output;
    assert.equal(result.code, 0, output.join('\n'));
    html = await readFile(path.join(outDir, 'index.html'), 'utf8');
    manifest = JSON.parse(await readFile(path.join(outDir, '.vite', 'manifest.json'), 'utf8'));
  });

  test('it sets up, builds the wasm package, then the page, and warns about nothing', () => {
    const steps = output.filter((line) => line.startsWith('npm run build: '));
    assert.deepEqual(steps, [
      'npm run build: checking the toolchain (scripts/setup.sh)',
      'npm run build: building the wasm package',
      'npm run build: building the page (vite build)',
      'npm run build: done. Upload the output folder (app/dist unless --outDir says otherwise) to any static host.',
    ]);
    assert.deepEqual(output.filter((line) => line.startsWith(OPEN_WARNING)), []);
    assert.ok(output.includes(`geocache: logbook open; backend ${BACKEND}`), output.join('\n'));
  });

  test('the Content-Security-Policy allows own scripts, the one inline script by its hash, wasm compilation and the backend origin (HTTPS and WSS) only', () => {
    const inline = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? '');
    assert.equal(inline.length, 1, 'the open logbook has one inline script');
    const hash = `'sha256-${createHash('sha256').update(inline[0] ?? '', 'utf8').digest('base64')}'`;
    assert.deepEqual(policyOf(html), {
      'default-src': ["'none'"],
      'script-src': ["'self'", "'wasm-unsafe-eval'", hash],
      'style-src': ["'self'"],
      'img-src': ["'self'", 'data:'],
      'font-src': ["'self'"],
      'connect-src': ["'self'", BACKEND, BACKEND_SOCKET],
      'manifest-src': ["'self'"],
      'worker-src': ["'self'"],
      'object-src': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
    });
    // A policy covers only what follows it: it must come before every script, stylesheet and icon.
    const policyAt = html.indexOf('http-equiv="Content-Security-Policy"');
    for (const tag of ['<script', '<link']) {
      assert.ok(html.indexOf(tag) > policyAt, `${tag} comes after the policy`);
    }
    assert.ok(html.indexOf('<meta charset') < policyAt, '<meta charset> stays first');
  });

  /**
   * The names a shipped .wasm exports, found by its file name's prefix (exactly one such asset).
   * @param {string} prefix
   */
  async function wasmExports(prefix) {
    const assets = await readdir(path.join(outDir, 'assets'));
    const files = assets.filter((name) => name.startsWith(`${prefix}-`) && name.endsWith('.wasm'));
    assert.equal(files.length, 1, `one ${prefix} asset: ${assets.join(', ')}`);
    const module = new WebAssembly.Module(await readFile(path.join(outDir, 'assets', /** @type {string} */ (files[0]))));
    return WebAssembly.Module.exports(module).map((entry) => entry.name);
  }

  /** Realtime's exports: the channel class, the standalone client, and `Client`'s channel methods. */
  const isRealtime = (/** @type {string} */ name) =>
    /^(realtimechannel_|realtimeclient_|__wbg_realtime)/.test(name) ||
    name === 'createRealtimeClient' ||
    ['client_channel', 'client_getChannels', 'client_removeChannel', 'client_removeAllChannels'].includes(name);

  test("the site ships three .wasm files: the logbook client, the live client and the owner's page's client", async () => {
    const assets = await readdir(path.join(outDir, 'assets'));
    assert.deepEqual(
      assets.filter((name) => name.endsWith('.wasm')).map((name) => name.replace(/-[\w-]{8}\.wasm$/, '')).sort(),
      ['geocache_client_bg', 'geocache_live_bg', 'geocache_owner_bg'],
    );
  });

  test("owner.html: the visitor page's policy, no manifest, and nothing of it precached by the visitor's worker", async () => {
    const owner = await readFile(path.join(outDir, 'owner.html'), 'utf8');
    assert.deepEqual(policyOf(owner), { ...policyOf(html), 'script-src': policyOf(html)['script-src']?.filter((source) => !source.startsWith("'sha256-")) });
    assert.doesNotMatch(owner, /rel="manifest"|geocache-early-paint/);
    assert.doesNotMatch(html, /owner\.html|geocache_owner/);
    const worker = await readFile(path.join(outDir, 'service-worker.js'), 'utf8');
    assert.doesNotMatch(worker, /owner\.html|owner-[\w-]{8}\.(js|css)|geocache_owner/);
    const owners = await wasmExports('geocache_owner_bg');
    for (const used of ['client_auth', 'client_removeEntry', 'client_removedEntries', 'client_restoreEntry', 'client_channel']) {
      assert.ok(owners.includes(used), `${used} missing from the owner's wasm`);
    }
    assert.ok(!owners.includes('client_storage') && !owners.includes('client_functions'), "storage or functions in the owner's wasm");
  });

  test('the logbook wasm has the reads and signs, and none of auth, storage, functions or Realtime', async () => {
    const names = await wasmExports('geocache_client_bg');
    const methods = names.filter((name) => name.startsWith('client_'));
    for (const used of ['client_listEntries', 'client_signLogbook', 'client_signRequest', 'client_listChanges', 'client_entriesById']) {
      assert.ok(methods.includes(used), `${used} missing from ${methods.join(' ')}`);
    }
    // The npm package's clients are download time for visitors and nothing the page calls.
    for (const left of ['client_auth', 'client_storage', 'client_functions', 'client_removeEntry', 'client_restoreEntry']) {
      assert.ok(!methods.includes(left), `${left} shipped to visitors`);
    }
    // Realtime is the live wasm's: a first visit downloads it only after its first entries are painted.
    assert.deepEqual(names.filter(isRealtime), [], 'Realtime in the first wasm');
  });

  test('the live wasm has the standalone realtime client and no REST client', async () => {
    const names = await wasmExports('geocache_live_bg');
    for (const used of [
      'createRealtimeClient',
      'realtimeclient_channel',
      'realtimeclient_getChannels',
      'realtimeclient_removeChannel',
      'realtimeclient_removeAllChannels',
      'realtimechannel_on',
      'realtimechannel_subscribe',
    ]) {
      assert.ok(names.includes(used), `${used} missing from ${names.join(' ')}`);
    }
    const rest = names.filter((name) => /^(createClient$|client_|entrylist_|__wbg_client_|__wbg_entrylist_)/.test(name));
    assert.deepEqual(rest, [], 'the REST client in the live wasm');
  });

  test('the service worker precaches both .wasm files, so an offline visit goes live when back online', async () => {
    const worker = await readFile(path.join(outDir, 'service-worker.js'), 'utf8');
    assert.match(worker, /assets\/geocache_client_bg-[\w-]{8}\.wasm/);
    assert.match(worker, /assets\/geocache_live_bg-[\w-]{8}\.wasm/);
  });

  test('every asset has a content hash in its name', async () => {
    const assets = await readdir(path.join(outDir, 'assets'));
    assert.ok(assets.some((name) => name.endsWith('.wasm')), `the wasm client is an asset: ${assets.join(', ')}`);
    // Each with its precompressed copies (app/build/precompress.ts).
    for (const name of assets) assert.match(name, /^[\w.-]+-[\w-]{8}\.(js|css|wasm)(\.br|\.gz)?$/, name);
  });

  test("index.html names the wasm client only in its inline script's list for a first visit; the scripts it loads up front never do", async () => {
    // The open logbook's inline script asks for the .wasm on a first visit, while the page loads
    // (app/build/preload-logbook.ts); the scripts loaded up front (the teaser's as well) never load it themselves.
    const listed = html.match(/ data-first-visit-wasm="\/assets\/geocache_client_bg-[\w-]{8}\.wasm"/);
    assert.ok(listed, 'the inline script lists the wasm client');
    assert.doesNotMatch(html.replace(listed[0], ''), /[\w-]+\.wasm"|geocache_client_bg/);
    const entry = manifest['index.html'];
    assert.ok(entry?.isEntry, 'the manifest names index.html as the entry');
    /** @type {Set<string>} every chunk loaded up front: the entry and its static imports, transitively */
    const upFront = new Set();
    const visit = (/** @type {string} */ key) => {
      if (upFront.has(key)) return;
      upFront.add(key);
      for (const imported of manifest[key]?.imports ?? []) visit(imported);
    };
    visit('index.html');
    for (const key of upFront) {
      const chunk = manifest[key];
      assert.ok(chunk);
      for (const file of [chunk.file, ...(chunk.css ?? []), ...(chunk.assets ?? [])]) {
        assert.doesNotMatch(file, /\.wasm$/, `${key} loads ${file} up front`);
        const text = await readFile(path.join(outDir, file), 'utf8');
        assert.doesNotMatch(text, /\.wasm\b|geocache_client/, `${file} (loaded up front) references the wasm client`);
      }
    }
    // ...while the lazily imported logbook does.
    const lazyRoots = [...new Set(Object.values(manifest).flatMap((chunk) => chunk.dynamicImports ?? []))];
    assert.ok(lazyRoots.length > 0, 'the logbook is a dynamic import');
    /** @type {Set<string>} the dynamically imported chunks and their static imports, transitively */
    const lazy = new Set();
    const visitLazy = (/** @type {string} */ key) => {
      if (lazy.has(key) || upFront.has(key)) return;
      lazy.add(key);
      for (const imported of manifest[key]?.imports ?? []) visitLazy(imported);
    };
    lazyRoots.forEach(visitLazy);
    const lazyTexts = await Promise.all(
      [...lazy].map((key) => readFile(path.join(outDir, manifest[key]?.file ?? ''), 'utf8')),
    );
    assert.ok(lazyTexts.some((text) => /assets\/geocache_client_bg-[\w-]{8}\.wasm/.test(text)), 'the lazy logbook chunk loads the wasm');
    assert.ok(lazyTexts.some((text) => /assets\/geocache_live_bg-[\w-]{8}\.wasm/.test(text)), 'a lazy chunk loads the live wasm');
  });
});

describe('vite build reports the client\'s own configuration errors', () => {
  /** @type {[string, Record<string, string>, string][]} */
  const cases = [
    ['no URL', { VITE_SUPABASE_URL: '', VITE_SUPABASE_ANON_KEY: ANON_KEY }, 'supabaseUrl is required.'],
    ['no key', { VITE_SUPABASE_URL: BACKEND, VITE_SUPABASE_ANON_KEY: '' }, 'supabaseKey is required.'],
    ['neither', { VITE_SUPABASE_URL: '', VITE_SUPABASE_ANON_KEY: '' }, 'supabaseUrl is required.'],
    ['a URL that is not HTTP', { VITE_SUPABASE_URL: 'ftp://example.com', VITE_SUPABASE_ANON_KEY: ANON_KEY }, 'Invalid supabaseUrl: Must be a valid HTTP or HTTPS URL.'],
  ];
  for (const [title, config, message] of cases) {
    test(`with the logbook open and ${title}: a warning with "${message}"; the page still builds, connecting nowhere`, async () => {
      const outDir = path.join(scratch, `open-${title.replaceAll(/\W+/g, '-')}`);
      const output = await buildApp({ outDir, env: { ...config, VITE_LOGBOOK_OPEN: 'true' } });
      assert.deepEqual(output.filter((line) => line.startsWith(OPEN_WARNING)), [`${OPEN_WARNING}${message}`]);
      const html = await readFile(path.join(outDir, 'index.html'), 'utf8');
      assert.deepEqual(policyOf(html)['connect-src'], ["'self'"]);
    });
  }

  test('with the logbook closed and nothing configured: no warning, only a note; the teaser builds', async () => {
    const outDir = path.join(scratch, 'closed');
    const output = await buildApp({ outDir, env: { VITE_SUPABASE_URL: undefined, VITE_SUPABASE_ANON_KEY: undefined, VITE_LOGBOOK_OPEN: undefined } });
    assert.deepEqual(output.filter((line) => line.startsWith(OPEN_WARNING)), []);
    assert.ok(
      output.includes('geocache: the logbook is closed (teaser only); before opening it, fix its configuration: supabaseUrl is required.'),
      output.join('\n'),
    );
    assert.ok(existsSync(path.join(outDir, 'index.html')));
    // The owner's page is built with the teaser too, and the retiring worker reloads every page it controlled but it.
    assert.ok(existsSync(path.join(outDir, 'owner.html')));
    const worker = await readFile(path.join(outDir, 'service-worker.js'), 'utf8');
    // By the visitor's worker's own test (src/sw/owner-page-url.ts), whose source it holds.
    assert.match(worker, /^const isOwnerPageUrl = function/);
    assert.match(worker, /if \(!isOwnerPageUrl\(client\.url, self\.registration\.scope\)\) client\.navigate\(client\.url\);/);
    // The teaser paints nothing from the device: no inline script, and none allowed.
    const teaser = await readFile(path.join(outDir, 'index.html'), 'utf8');
    assert.doesNotMatch(teaser, /<script(?![^>]*\ssrc=)[^>]*>/);
    assert.deepEqual(policyOf(teaser)['script-src'], ["'self'", "'wasm-unsafe-eval'"]);
    // What the teaser loads up front holds none of the logbook's code: no sign, no client, no device copy.
    const upFront = await staticScripts(outDir, teaser);
    assert.ok(upFront.length > 0);
    for (const [file, code] of upFront) assert.doesNotMatch(code, /geocacheEarlySigns|getClient\(\)|geocache-logbook-copy/, file);
  });
});

/**
 * The scripts a page runs before any dynamic import: its module scripts and every chunk they import statically, with
 * their code.
 * @param {string} outDir
 * @param {string} html
 * @returns {Promise<[string, string][]>}
 */
async function staticScripts(outDir, html) {
  const queue = [...html.matchAll(/<script\b[^>]*\btype="module"[^>]*\bsrc="\/([^"]+)"/g)].map((match) => match[1] ?? '');
  /** @type {Map<string, string>} */
  const seen = new Map();
  while (queue.length > 0) {
    const file = /** @type {string} */ (queue.shift());
    if (seen.has(file)) continue;
    const code = await readFile(path.join(outDir, file), 'utf8');
    seen.set(file, code);
    for (const match of code.matchAll(/\bimport\s*(?:[\w{}\s,*$]+from\s*)?["'](\.\/[^"']+)["']/g)) {
      queue.push(path.posix.join(path.posix.dirname(file), match[1] ?? ''));
    }
  }
  return [...seen];
}

/**
 * A legacy JWT with these claims (the signature is not checked by the build, so any will do).
 * @param {Record<string, unknown>} claims
 */
function legacyKey(claims) {
  return ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'c2lnbmF0dXJl'].join('.');
}

describe('the publishable key', () => {
  test('VITE_SUPABASE_PUBLISHABLE_KEY alone configures the page: no warning, the backend in the policy', async () => {
    const outDir = path.join(scratch, 'publishable');
    const output = await buildApp({
      outDir,
      env: { VITE_SUPABASE_URL: BACKEND, VITE_SUPABASE_PUBLISHABLE_KEY: 'sb_publishable_AbCd_123', VITE_SUPABASE_ANON_KEY: undefined, VITE_LOGBOOK_OPEN: 'true' },
    });
    assert.deepEqual(output.filter((line) => line.startsWith(OPEN_WARNING)), []);
    const html = await readFile(path.join(outDir, 'index.html'), 'utf8');
    assert.deepEqual(policyOf(html)['connect-src'], ["'self'", BACKEND, BACKEND_SOCKET]);
  });

  test('both names set to the same key are accepted', async () => {
    const outDir = path.join(scratch, 'both-same');
    const output = await buildApp({
      outDir,
      env: { VITE_SUPABASE_URL: BACKEND, VITE_SUPABASE_PUBLISHABLE_KEY: ANON_KEY, VITE_SUPABASE_ANON_KEY: ANON_KEY, VITE_LOGBOOK_OPEN: 'true' },
    });
    assert.deepEqual(output.filter((line) => line.startsWith(OPEN_WARNING)), []);
  });
});

describe('vite build refuses a key that would give every visitor full rights, naming its variable', () => {
  /** @type {[string, string, string, RegExp][]} */
  const cases = [
    ['a secret key', 'VITE_SUPABASE_PUBLISHABLE_KEY', 'sb_secret_AbCd_123', /VITE_SUPABASE_PUBLISHABLE_KEY holds a secret key \(sb_secret_\.\.\.\): it would give every visitor/],
    ['a secret key under the older name', 'VITE_SUPABASE_ANON_KEY', 'sb_secret_AbCd_123', /VITE_SUPABASE_ANON_KEY holds a secret key/],
    ['a legacy service_role key', 'VITE_SUPABASE_ANON_KEY', legacyKey({ iss: 'supabase', role: 'service_role' }), /VITE_SUPABASE_ANON_KEY holds a service_role key/],
  ];
  for (const [title, variable, key, message] of cases) {
    test(`${title} in ${variable}, even with the logbook closed`, async () => {
      const outDir = path.join(scratch, `secret-${title.replaceAll(/\W+/g, '-')}`);
      const env = { VITE_SUPABASE_URL: BACKEND, VITE_SUPABASE_PUBLISHABLE_KEY: undefined, VITE_SUPABASE_ANON_KEY: undefined, [variable]: key };
      await assert.rejects(buildApp({ outDir, env }), (error) => {
        assert.match(String(error), message);
        assert.doesNotMatch(String(error), /AbCd_123/, 'the key itself is not printed');
        return true;
      });
      assert.ok(!existsSync(path.join(outDir, 'index.html')), 'nothing is written');
    });
  }
});

describe('two different keys are a configuration error naming both variables', () => {
  const BOTH = 'VITE_SUPABASE_PUBLISHABLE_KEY and VITE_SUPABASE_ANON_KEY are both set, to different keys';

  test('vite build (keys from the environment or app/.env files) fails', async () => {
    const outDir = path.join(scratch, 'two-keys');
    const env = { VITE_SUPABASE_URL: BACKEND, VITE_SUPABASE_PUBLISHABLE_KEY: 'sb_publishable_AbCd_123', VITE_SUPABASE_ANON_KEY: ANON_KEY };
    await assert.rejects(buildApp({ outDir, env }), (error) => {
      assert.match(String(error), new RegExp(BOTH));
      return true;
    });
  });

  /** @type {[string, string, Record<string, string>, string][]} */
  const launchers = [
    ['npm run build', 'build.mjs', { VITE_SUPABASE_PUBLISHABLE_KEY: 'sb_publishable_a', VITE_SUPABASE_ANON_KEY: ANON_KEY }, BOTH],
    ['npm start', 'start.mjs', { SUPABASE_URL: BACKEND, SUPABASE_PUBLISHABLE_KEY: 'sb_publishable_a', SUPABASE_ANON_KEY: ANON_KEY }, 'SUPABASE_PUBLISHABLE_KEY and SUPABASE_ANON_KEY are both set, to different keys'],
    ['npm run preview', 'preview.mjs', { SUPABASE_URL: BACKEND, SUPABASE_PUBLISHABLE_KEY: 'sb_publishable_a', SUPABASE_ANON_KEY: ANON_KEY }, 'SUPABASE_PUBLISHABLE_KEY and SUPABASE_ANON_KEY are both set, to different keys'],
  ];
  for (const [command, script, env, message] of launchers) {
    test(`${command} stops before any slow step`, async () => {
      const child = spawn(process.execPath, [path.join(repoRoot, 'scripts', script)], {
        cwd: repoRoot,
        env: environmentWith({ NO_COLOR: '1', ...env }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      /** @type {string[]} */
      const output = [];
      forEachLine(child.stdout, (line) => output.push(line));
      forEachLine(child.stderr, (line) => output.push(line));
      const { code } = await exited(child);
      assert.equal(code, 1, output.join('\n'));
      assert.deepEqual(output, [`${command}: ${message}: set only one (${message.split(' ')[0]} is the current name).`]);
    });
  }

  test('npm start names the missing URL when only the publishable key is set', async () => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'start.mjs')], {
      cwd: repoRoot,
      env: environmentWith({ NO_COLOR: '1', SUPABASE_URL: undefined, SUPABASE_ANON_KEY: undefined, SUPABASE_PUBLISHABLE_KEY: 'sb_publishable_a' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    /** @type {string[]} */
    const output = [];
    forEachLine(child.stdout, (line) => output.push(line));
    forEachLine(child.stderr, (line) => output.push(line));
    const { code } = await exited(child);
    assert.equal(code, 1, output.join('\n'));
    assert.deepEqual(output, [
      'npm start: SUPABASE_PUBLISHABLE_KEY is set but SUPABASE_URL is not. Set both to use a hosted Supabase project, or neither to use the local emulator.',
    ]);
  });
});
