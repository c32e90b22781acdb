import { VitePWA } from 'vite-plugin-pwa';
import type { PluginOption } from 'vite';
import { webAppManifest } from './web-app-manifest.ts';

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
      globIgnores: ['service-worker.js'],
    },
    devOptions: { enabled: false },
  });
}
