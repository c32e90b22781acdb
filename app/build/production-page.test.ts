import type { ResolvedConfig } from 'vite';
import { describe, expect, it, vi } from 'vitest';
import { productionPage } from './production-page.ts';

// The client accepts the URL and key here: only the page's own setting is under test.
vi.mock('./client-config.ts', () => ({ clientConfigError: vi.fn(() => Promise.resolve(null)) }));

/** Runs configResolved as Vite does and returns what the plugin logged, by level. */
async function configure(env: Record<string, string | undefined>) {
  const logged = { warn: [] as string[], info: [] as string[] };
  const logger = { warn: (message: string) => logged.warn.push(message), info: (message: string) => logged.info.push(message) };
  const plugin = productionPage({ clientPackageDir: '/nowhere' });
  const configResolved = plugin.configResolved as (config: ResolvedConfig) => Promise<void>;
  await configResolved({
    env: { VITE_SUPABASE_URL: 'https://abcdefghijklmnopqrst.supabase.co', VITE_SUPABASE_ANON_KEY: 'anon', ...env },
    logger,
  } as unknown as ResolvedConfig);
  return logged;
}

const INVALID = 'VITE_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647, e.g. 30000 (got "30s").';

describe('production-page: VITE_REQUEST_TIMEOUT_MS', () => {
  it('warns when the logbook is open and the page would reject the timeout', async () => {
    const { warn } = await configure({ VITE_LOGBOOK_OPEN: 'true', VITE_REQUEST_TIMEOUT_MS: '30s' });
    expect(warn).toHaveLength(1);
    expect(warn[0]).toContain(`geocache: the logbook is open (VITE_LOGBOOK_OPEN=true) but the page rejects its configuration: ${INVALID}`);
    expect(warn[0]).toContain('"Error fetching logs:"');
  });

  it('only notes it while the logbook is closed', async () => {
    const { warn, info } = await configure({ VITE_REQUEST_TIMEOUT_MS: '30s' });
    expect(warn).toEqual([]);
    expect(info).toContain(`geocache: the logbook is closed (teaser only); before opening it, fix its configuration: ${INVALID}`);
  });

  it('says nothing about a valid or unset timeout', async () => {
    for (const timeout of ['5000', '', undefined]) {
      const { warn, info } = await configure({ VITE_LOGBOOK_OPEN: 'true', VITE_REQUEST_TIMEOUT_MS: timeout });
      expect(warn, String(timeout)).toEqual([]);
      expect(info.filter((line) => line.includes('REQUEST_TIMEOUT')), String(timeout)).toEqual([]);
    }
  });
});
