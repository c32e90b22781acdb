// `npm start` (node scripts/start.mjs, the dev server) and `npm run preview` (node scripts/preview.mjs, the
// production build): each prints the page URL, serves a working logbook backed by the emulator's data file, and on
// SIGTERM stops both servers, frees their ports and leaves nothing behind.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmulator } from '../../scripts/lib/emulator.mjs';
import { findFreePort, isPortFree } from '../../scripts/lib/ports.mjs';
import { exited, forEachLine } from '../../scripts/lib/processes.mjs';
import { repoRoot } from '../../scripts/lib/repo.mjs';
// The fixtures' `test` for its project option (pageServer); the servers here come from the command, not its stack.
import { expect, logbookPage, sign, test } from './fixtures.ts';

const COMMANDS = [
  { command: 'npm start', script: 'start.mjs', pageServer: 'dev' },
  { command: 'npm run preview', script: 'preview.mjs', pageServer: 'production' },
] as const;

/** Whether a process with this id still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const { command, script, pageServer } of COMMANDS) {
  test(`${command} serves the logbook and stops both servers on SIGTERM`, async ({ page, pageServer: project }) => {
    test.skip(project !== pageServer, `${command} serves the ${pageServer} page`);
    // It runs setup.sh and the wasm build first; when everything is built they take seconds.
    test.setTimeout(600_000);
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'geocache-start-'));
    const pagePort = await findFreePort();
    const emulatorPort = await findFreePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(pagePort),
      EMULATOR_PORT: String(emulatorPort),
      LOGBOOK_OPEN: 'true',
      GEOCACHE_DATA_DIR: dataDir,
    };
    delete env.SUPABASE_URL;
    delete env.SUPABASE_ANON_KEY;
    delete env.SUPABASE_PUBLISHABLE_KEY;
    const start = spawn(process.execPath, [path.join(repoRoot, 'scripts', script)], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    const startExit = exited(start);
    const pageLine = new Promise<string>((resolve, reject) => {
      forEachLine(start.stdout, (line) => {
        output.push(line);
        if (line.startsWith('Page: ')) resolve(line);
      });
      forEachLine(start.stderr, (line) => output.push(line));
      void startExit.then(({ code, signal }) =>
        reject(new Error(`${command} exited (code ${code}, signal ${signal}) before printing the page URL:\n${output.join('\n')}`)),
      );
    });

    try {
      expect(await pageLine).toBe(`Page: http://127.0.0.1:${pagePort}/`);
      expect(output).toContain(`Emulator: http://127.0.0.1:${emulatorPort}`);
      // The announcement's lines reach this pipe in chunks of the kernel's choosing: its last line says it is whole.
      await expect.poll(() => output).toContain('Press Ctrl-C to stop.');
      // The owner's page beside the visitor's, and how to name an owner in the emulator's database.
      expect(output).toContain(`Owner page: http://127.0.0.1:${pagePort}/owner.html`);
      expect(output.some((line) => /^Add an owner \(asks for the account's password\): \S+ owner add --db \S+ EMAIL$/.test(line)), output.join('\n')).toBe(true);
      const pids = output.find((line) => line.startsWith('Processes: '))?.match(/emulator pid (\d+), page server pid (\d+)/);
      expect(pids, output.join('\n')).toBeTruthy();
      const [emulatorPid, vitePid] = [Number(pids?.[1]), Number(pids?.[2])];
      expect(alive(emulatorPid) && alive(vitePid)).toBe(true);

      await page.goto(`http://127.0.0.1:${pagePort}/`);
      await expect(logbookPage(page).heading).toBeVisible();
      // Only the production build carries the Content-Security-Policy.
      await expect(page.locator('meta[http-equiv="Content-Security-Policy"]')).toHaveCount(pageServer === 'production' ? 1 : 0);
      await sign(page, { name: 'Ada', message: `signed through ${command}` });
      await expect(logbookPage(page).entries).toHaveCount(1);
      await page.close();

      start.kill('SIGTERM');
      const { code, signal } = await startExit;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(alive(emulatorPid), 'the emulator exited').toBe(false);
      expect(alive(vitePid), 'Vite exited').toBe(false);
      expect(await isPortFree(pagePort)).toBe(true);
      expect(await isPortFree(emulatorPort)).toBe(true);
      // npm run preview builds into a temporary folder (never app/dist) and removes it.
      const buildDir = output.find((line) => line.includes(' into /'))?.replace(/^.* into /, '');
      if (pageServer === 'production') {
        expect(buildDir, output.join('\n')).toBeTruthy();
        expect(existsSync(buildDir ?? ''), `${buildDir} was removed`).toBe(false);
      }

      // The signed entry was acknowledged, so it is in the data file and survives the restart.
      const dbFile = path.join(dataDir, 'emulator.sqlite3');
      expect((await stat(dbFile)).size).toBeGreaterThan(0);
      const emulator = await startEmulator({ db: dbFile });
      try {
        const rows = await fetch(`${emulator.url}/rest/v1/geocache_logs?select=name,message`, {
          headers: { apikey: emulator.anonKey, authorization: `Bearer ${emulator.anonKey}` },
        });
        expect(await rows.json()).toEqual([{ name: 'Ada', message: `signed through ${command}` }]);
      } finally {
        await emulator.stop();
      }
    } finally {
      if (start.exitCode === null && start.signalCode === null) {
        start.kill('SIGTERM');
        await startExit;
      }
      await test.info().attach(`${command} output`, { body: output.join('\n'), contentType: 'text/plain' });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
}
