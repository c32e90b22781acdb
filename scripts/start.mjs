#!/usr/bin/env node
// @ts-check
// `npm start`: set up the toolchain, build the wasm package, start the emulator (unless a hosted Supabase project
// is configured) and the Vite page; stop both on Ctrl-C/SIGTERM. Node built-ins only: node_modules may not exist yet.
import path from 'node:path';
import { createLauncher, pageEnv } from './lib/launcher.mjs';
import { emulatorBinary } from './lib/repo.mjs';
import { startVite } from './lib/vite.mjs';

const DEFAULT_PAGE_PORT = 5173;

const launcher = createLauncher('npm start');

launcher.run(async () => {
  const config = launcher.readConfig({ defaultPagePort: DEFAULT_PAGE_PORT });
  launcher.handleSignals();

  // Checked before the slow steps too, so a taken port is reported at once.
  await launcher.requireFreePort('PORT', config.pagePort);
  if (!config.hosted) await launcher.requireFreePort('EMULATOR_PORT', config.emulatorPort);
  await launcher.prepare({ emulator: !config.hosted });
  if (launcher.shuttingDown) return;

  await launcher.requireFreePort('PORT', config.pagePort);
  const backend = await launcher.startBackend(config);
  if (launcher.shuttingDown) return;

  const vite = await startVite({
    port: config.pagePort,
    env: pageEnv(backend, config),
    detached: true,
    onSpawn: launcher.track,
    onOutput: launcher.prefixed('vite'),
  });
  launcher.watch('page server (Vite)', vite.child);
  if (backend.emulatorPid !== undefined) console.log(`Processes: emulator pid ${backend.emulatorPid}, page server pid ${vite.child.pid}`);
  else console.log(`Processes: page server pid ${vite.child.pid}`);
  console.log(`Logbook: ${config.logbookOpen === 'true' ? 'open (LOGBOOK_OPEN=true)' : 'closed, teaser shown (set LOGBOOK_OPEN=true to open it)'}`);
  console.log(`Page: ${vite.url}`);
  // The owner's page (owner.html) is built with every page, the logbook open or not; it is never linked from the page.
  console.log(`Owner page: ${new URL('owner.html', vite.url).href}`);
  if (backend.db !== undefined) {
    console.log(`Add an owner (asks for the account's password): ${shortPath(emulatorBinary)} owner add --db ${shortPath(backend.db)} EMAIL`);
  }
  console.log('Press Ctrl-C to stop.');
});

/** `file` relative to the working directory when it lies inside it, else as it is. */
function shortPath(/** @type {string} */ file) {
  const relative = path.relative(process.cwd(), file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
