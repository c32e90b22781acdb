#!/usr/bin/env node
// @ts-check
// `npm run build`: set up the toolchain, build the wasm package, then the static page into app/dist (`vite build`;
// extra arguments are passed on, e.g. `npm run build -- --outDir /tmp/site`). The page's configuration is read
// at build time from VITE_SUPABASE_URL, VITE_SUPABASE_PUBLISHABLE_KEY (or VITE_SUPABASE_ANON_KEY), VITE_LOGBOOK_OPEN
// and VITE_REQUEST_TIMEOUT_MS (or app/.env files); the build refuses two different keys and a secret key
// (app/build/production-page.ts).
// Node built-ins only: node_modules may not exist yet.
import { createLauncher } from './lib/launcher.mjs';
import { appDir, viteBinary } from './lib/repo.mjs';
import { readSupabaseKey } from './lib/supabase-key.mjs';

const launcher = createLauncher('npm run build');

launcher.run(async () => {
  // Before the slow steps (the build checks again, app/.env files included).
  try {
    readSupabaseKey(process.env, { publishable: 'VITE_SUPABASE_PUBLISHABLE_KEY', anon: 'VITE_SUPABASE_ANON_KEY' });
  } catch (error) {
    launcher.fail(/** @type {Error} */ (error).message);
  }
  launcher.handleSignals();
  await launcher.prepare({ emulator: false });
  await launcher.step('building the page (vite build)', viteBinary, ['build', ...process.argv.slice(2)], { cwd: appDir });
  if (launcher.shuttingDown) return;
  console.log('npm run build: done. Upload the output folder (app/dist unless --outDir says otherwise) to any static host.');
});
