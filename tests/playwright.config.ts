import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../scripts/lib/chromium.mjs';
import type { PageServer } from './e2e/fixtures.ts';

const FAULTS_SPEC = /\/faults\.spec\.ts$/;

export default defineConfig<object, { pageServer: PageServer }>({
  testDir: './e2e',
  outputDir: './test-results',
  // Each test starts its own emulator and Vite server; one worker keeps a 2-core machine responsive.
  workers: 1,
  retries: 0,
  forbidOnly: true,
  reporter: 'list',
  timeout: 90_000,
  expect: { timeout: 15_000 },
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
  // The dev server's faults spec is a project of its own only so that `npm test` can run it beside the others: its
  // tests mostly wait out the client's resend back-offs, and it is the longest file.
  projects: [
    { name: 'dev', use: { pageServer: 'dev' }, testIgnore: FAULTS_SPEC },
    { name: 'dev-faults', use: { pageServer: 'dev' }, testMatch: FAULTS_SPEC },
    { name: 'production', use: { pageServer: 'production' } },
  ],
});
