#!/usr/bin/env node
// @ts-check
// `npm start`: set up the toolchain, build the wasm package, start the emulator (unless a hosted Supabase project
// is configured) and the Vite page; stop both on Ctrl-C/SIGTERM. Node built-ins only: node_modules may not exist yet.
import { createLauncher, pageEnv } from './lib/launcher.mjs';
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
  launcher.announce(config, backend, { url: vite.url, pid: vite.child.pid });
});
