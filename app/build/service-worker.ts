import { VitePWA } from 'vite-plugin-pwa';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Plugin, PluginOption } from 'vite';
import { webAppManifest } from './web-app-manifest.ts';
import { OWNER_PAGE } from './owner-page.ts';
import { isOwnerPageUrl } from '../src/sw/owner-page-url.ts';

/** What the worker keeps: every file of the build a visit may load (not the precompressed .gz/.br copies). */
export const PRECACHED_FILES = '**/*.{html,js,css,wasm,webmanifest,png,svg}';

/**
 * `vite build` only: the web app manifest, and the service worker built from src/sw/service-worker.ts with
 * Workbox's precache list injected (vite-plugin-pwa, injectManifest). The page registers the worker itself
 * (src/app/service-worker/), only when the logbook is open.
 *
 * The teaser's build precaches nothing: its service-worker.js only removes itself and its caches. A visitor whose
 * browser still runs the logbook's worker from an earlier build gets that file at the browser's next update check,
 * and the teaser at the next load, instead of the old logbook kept forever.
 */
export function serviceWorker({ logbookOpen }: { logbookOpen: boolean }): PluginOption {
  return [pwa(logbookOpen), spareOwnerPage(logbookOpen)];
}

function pwa(logbookOpen: boolean): PluginOption {
  return VitePWA({
    strategies: 'injectManifest',
    srcDir: 'src/sw',
    filename: 'service-worker.ts',
    // The page shows "A new version is available" and reloads when the visitor says so (src/app/service-worker/).
    registerType: 'prompt',
    injectRegister: false,
    selfDestroying: !logbookOpen,
    manifest: webAppManifest,
    injectManifest: {
      globPatterns: [PRECACHED_FILES],
      // The worker's own file is never precached: the browser checks it for updates.
      // Nor is the owner's page (owner.html, its entry script and stylesheet, and its own wasm): the visitor's worker
      // never loads or answers it (src/sw/service-worker.ts).
      globIgnores: ['service-worker.js', OWNER_PAGE, 'assets/owner-*', 'assets/geocache_owner*'],
    },
    devOptions: { enabled: false },
  });
}

/** What vite-plugin-pwa's retiring worker does to every page it controlled: reload it. */
const RELOAD = 'client.navigate(client.url);';

/**
 * The retiring worker as vite-plugin-pwa wrote it, reloading every page it controlled but the owner's: by the same
 * test as the visitor's worker (src/sw/owner-page-url.ts), whose source it gets.
 */
export function sparingOwnerPage(worker: string): string {
  if (!worker.includes(RELOAD)) throw new Error(`spare-owner-page: the retiring worker no longer holds ${RELOAD}`);
  const spared = `if (!isOwnerPageUrl(client.url, self.registration.scope)) ${RELOAD}`;
  return `const isOwnerPageUrl = ${isOwnerPageUrl.toString()};\n${worker.replace(RELOAD, spared)}`;
}

/**
 * The teaser's build: the retiring worker reloads the pages it controlled, so they load without it, but never the
 * owner's page (an owner may be in the middle of removing an entry). vite-plugin-pwa writes that worker when the
 * bundle closes; this runs after it.
 */
function spareOwnerPage(logbookOpen: boolean): Plugin {
  let file = '';
  return {
    name: 'geocache:spare-owner-page',
    apply: 'build',
    configResolved(config) {
      file = path.resolve(config.root, config.build.outDir, 'service-worker.js');
    },
    closeBundle: {
      order: 'post',
      sequential: true,
      async handler() {
        if (logbookOpen) return;
        await writeFile(file, sparingOwnerPage(await readFile(file, 'utf8')));
      },
    },
  };
}
