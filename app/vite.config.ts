/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import wasm from 'vite-plugin-wasm';
import { prerenderTeaser } from './build/prerender-teaser.ts';
import { productionPage } from './build/production-page.ts';

const fromHere = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const clientPackageDir = fromHere('../wasm/pkg');

export default defineConfig({
  plugins: [wasm(), react(), prerenderTeaser(), productionPage({ clientPackageDir })],
  resolve: {
    alias: {
      '@': fromHere('./src'),
      // The wasm-pack output is consumed in place, not through npm linking: the page builds against this tree's client.
      // The page's build of the client: no auth, no benchmark export (see scripts/build-wasm.sh).
      'geocache-client': fromHere('../wasm/pkg-logbook'),
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
});
