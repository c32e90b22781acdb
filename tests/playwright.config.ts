import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../scripts/lib/chromium.mjs';
import type { PageServer } from './e2e/fixtures.ts';

/** The client against faulty backends (the fault plan, malformed answers): the longest files, dev server only. */
const FAULT_SPECS = /\/(faults|malformed-lists)\.spec\.ts$/;
/** The service worker, the outbox and the device's copy: offline visits and deliveries, production build only. */
const OFFLINE_SPECS = /\/(offline-shell|outbox|outbox-faults|device-copy|owner)\.spec\.ts$/;

export default defineConfig<object, { pageServer: PageServer }>({
  testDir: './e2e',
  outputDir: './test-results',
  // Each test starts its own emulator and Vite server; one worker keeps a 2-core machine responsive.
  workers: 1,
  retries: 0,
  forbidOnly: true,
  reporter: 'list',
  // A hang guard, not a speed target: a test's fixtures (an emulator, a page server, a production build) and its steps
  // run beside three other Playwright runs on two cores, and a slow or shared machine must not turn that into a failure.
  timeout: 180_000,
  // Likewise: how long a web-first assertion waits for the page before it fails.
  expect: { timeout: 30_000 },
  use: {
    browserName: 'chromium',
    headless: true,
    // launch() (not a persistent context) gives every run a fresh temporary profile.
    // Debian's Chromium: browser downloads do not work on this kind of machine.
    launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_ARGS },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  // Every spec runs against the Vite dev server and against the production build (`vite build` + `vite preview`,
  // as `npm run build`/`npm run preview` make it); specs about one of them skip the other.
  // Each server's specs are split over two projects only so that `npm test` can run the four side by side, each in a
  // Playwright run of its own: their tests mostly wait (resend back-offs, service worker updates, page servers), and
  // four runs of similar length end sooner than two. A production run builds each page configuration it needs once.
  projects: [
    { name: 'dev', use: { pageServer: 'dev' }, testIgnore: FAULT_SPECS },
    { name: 'dev-faults', use: { pageServer: 'dev' }, testMatch: FAULT_SPECS },
    { name: 'production', use: { pageServer: 'production' }, testIgnore: OFFLINE_SPECS },
    { name: 'production-offline', use: { pageServer: 'production' }, testMatch: OFFLINE_SPECS },
  ],
});
