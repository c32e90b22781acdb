/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, loadEnv } from 'vite';
import wasm from 'vite-plugin-wasm';
import { deferManifestLink } from './build/defer-manifest-link.ts';
import { inlineEarlyPaint } from './build/inline-early-paint.ts';
import { precompress } from './build/precompress.ts';
import { preloadLogbook } from './build/preload-logbook.ts';
import { prerenderLogbook } from './build/prerender-logbook.ts';
import { prerenderTeaser } from './build/prerender-teaser.ts';
import { productionPage } from './build/production-page.ts';
import { serviceWorker } from './build/service-worker.ts';
import { stylesheetsFirstPlugin } from './build/stylesheets-first.ts';

const fromHere = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const clientPackageDir = fromHere('../wasm/pkg');

export default defineConfig(({ mode }) => {
  // The same switch the page reads (src/config/env.ts): anything but "true" is the teaser. The environment wins
  // over app/.env files, as for the page.
  const logbookOpen = loadEnv(mode, fromHere('.'), 'VITE_').VITE_LOGBOOK_OPEN === 'true';
  return {
    plugins: [
      wasm(),
      react(),
      prerenderTeaser(),
      // Before productionPage, whose Content-Security-Policy allows the inline script by its hash.
      inlineEarlyPaint({ logbookOpen }),
      productionPage({ clientPackageDir }),
      prerenderLogbook({ logbookOpen }),
      preloadLogbook({ logbookOpen }),
      serviceWorker({ logbookOpen }),
      deferManifestLink({ logbookOpen }),
      // Once the head is complete: its stylesheets, which the served form's first paint waits for, are asked for first.
      stylesheetsFirstPlugin(),
      precompress(),
    ],
    resolve: {
      alias: {
        '@': fromHere('./src'),
        // The wasm-pack output is consumed in place, not through npm linking: the page builds against this tree's client.
        // The page's builds of the client (see scripts/build-wasm.sh): the reads and signs its first entries need, and
        // the realtime client its live entries load once those are painted (src/features/logbook/api/live-code.ts).
        'geocache-client': fromHere('../wasm/pkg-logbook'),
        'geocache-live': fromHere('../wasm/pkg-live'),
        // The owner's page's build (owner.html): sign-in, MFA, the owner's calls and a channel. The visitor's page never imports it.
        'geocache-owner': fromHere('../wasm/pkg-owner'),
      },
    },
    build: {
      rolldownOptions: {
        // The owner's page is a second page of the site, built with every build (src/features/owner).
        input: { index: fromHere('index.html'), owner: fromHere('owner.html') },
        // The logbook's modules do nothing when imported (the served page's inline script aside, which is built on its
        // own): the entry uses the logbook's start-up for the open logbook only, and without this the teaser's build
        // would still import their chunks (the client's code among them) in case they did.
        treeshake: { moduleSideEffects: (id) => !/\/app\/src\/features\/logbook\/(?!first-paint\/inline-script\.ts$).+\.tsx?$/.test(id) },
        output: {
          codeSplitting: {
            // The configuration and the page's texts, used by the entry and by the lazily loaded chunks alike, in one
            // chunk of their own. Rolldown does not merge shared modules into the entry when a module awaits at top
            // level (the wasm client does), and would otherwise split each into a chunk named after it: the teaser
            // would then load "logbook-title-*.js" for the one string it does not show.
            groups: [{ name: 'page-config', test: /\/app\/src\/(config|content)\// }],
          },
        },
      },
    },
    server: { host: '127.0.0.1' },
    preview: { host: '127.0.0.1' },
    test: {
      environment: 'jsdom',
      include: ['src/**/*.test.{ts,tsx}', 'build/**/*.test.ts'],
      setupFiles: ['./src/testing/setup-tests.ts'],
      // Stylesheets are applied so tests can check the text-wrapping rules that keep hostile input readable.
      css: true,
      // A zone far from UTC makes "shown in local time" observable.
      env: { TZ: 'Pacific/Auckland' },
    },
  };
});
