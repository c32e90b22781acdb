#!/usr/bin/env node
// @ts-check
// `npm run preview`: the production build, served as a static host would (`vite preview`), against the emulator
// (or SUPABASE_URL and SUPABASE_PUBLISHABLE_KEY or SUPABASE_ANON_KEY, as for npm start). The build goes to a temporary folder, never app/dist, so
// a build made for a hosted project is not overwritten. The build's precompressed copies (.br, .gz) are served by the
// request's Accept-Encoding, the wasm client included (app/build/precompress.ts). Stops everything on Ctrl-C/SIGTERM.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLauncher, pageEnv } from './lib/launcher.mjs';
import { buildApp, startVitePreview } from './lib/vite.mjs';

/** vite preview's own default port. */
const DEFAULT_PAGE_PORT = 4173;

const launcher = createLauncher('npm run preview');

launcher.run(async () => {
  const config = launcher.readConfig({ defaultPagePort: DEFAULT_PAGE_PORT });
  launcher.handleSignals();

  await launcher.requireFreePort('PORT', config.pagePort);
  if (!config.hosted) await launcher.requireFreePort('EMULATOR_PORT', config.emulatorPort);
  await launcher.prepare({ emulator: !config.hosted });
  if (launcher.shuttingDown) return;

  await launcher.requireFreePort('PORT', config.pagePort);
  const backend = await launcher.startBackend(config);
  if (launcher.shuttingDown) return;

  const outDir = mkdtempSync(path.join(os.tmpdir(), 'geocache-preview-'));
  launcher.onExit(() => rmSync(outDir, { recursive: true, force: true }));
  console.log(`npm run preview: building the page for ${backend.url} into ${outDir}`);
  try {
    await buildApp({
      outDir,
      env: pageEnv(backend, config),
      onOutput: launcher.prefixed('build'),
      onSpawn: launcher.trackStep,
    });
  } catch {
    if (launcher.shuttingDown) return;
    // Its output is above, prefixed [build].
    return launcher.fail('building the page (vite build) failed.');
  }
  if (launcher.shuttingDown) return;

  const preview = await startVitePreview({
    outDir,
    port: config.pagePort,
    detached: true,
    onSpawn: launcher.track,
    onOutput: launcher.prefixed('preview'),
  });
  launcher.watch('page server (vite preview)', preview.child);
  launcher.announce(config, backend, { url: preview.url, pid: preview.child.pid });
});
