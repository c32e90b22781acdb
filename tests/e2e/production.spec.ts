// The production build in the browser: its Content-Security-Policy is in force (an injected inline script does
// not run, eval is refused) yet lets the page do everything it needs (its own scripts and styles, its one inline
// script, allowed by its hash, compiling the
// wasm client, calling the backend), and the teaser never downloads the wasm client or the logbook's code.
import { expect, logbookPage, sign, test } from './fixtures.ts';

test.skip(({ pageServer }) => pageServer !== 'production', 'checks the production build (project "production")');

/** The policy the page runs under, as a map of directive to sources. */
async function pagePolicy(page: import('@playwright/test').Page): Promise<Record<string, string[]>> {
  const content = (await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')) ?? '';
  return Object.fromEntries(
    content.split(';').map((directive) => {
      const [name = '', ...sources] = directive.trim().split(/\s+/);
      return [name, sources];
    }),
  );
}

test.describe('the open logbook', () => {
  test('runs under a policy that allows its own scripts, its one inline script by its hash, wasm compilation and the backend only', async ({ page, stack }) => {
    await page.goto('/');
    await expect(logbookPage(page).heading).toBeVisible();
    const policy = await pagePolicy(page);
    const inline = await page.locator('script:not([src])').evaluateAll((scripts) => scripts.map((script) => script.textContent ?? ''));
    expect(inline).toHaveLength(1);
    const digest = await page.evaluate(async (text) => {
      const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
      return btoa(String.fromCharCode(...bytes));
    }, inline[0] ?? '');
    expect(policy['script-src']).toEqual(["'self'", "'wasm-unsafe-eval'", `'sha256-${digest}'`]);
    // The inline script ran under it: it left its work for the page's scripts.
    expect(await page.evaluate(() => 'geocacheEarlyPaint' in window)).toBe(true);
    const backend = new URL(stack.emulator.url);
    expect(policy['connect-src']).toEqual(["'self'", backend.origin, `ws://${backend.host}`]);
    expect(policy['default-src']).toEqual(["'none'"]);
    expect(policy['object-src']).toEqual(["'none'"]);
  });

  test('compiles the wasm client, applies its stylesheets and signs, with no policy violation', async ({ page, record }) => {
    const firstLoad = page.waitForResponse((response) => response.url().includes('/rest/v1/geocache_logs'));
    await page.goto('/');
    expect((await firstLoad).status()).toBe(200);
    await sign(page, { name: 'Ada', message: 'signed on the production build' });
    await expect(logbookPage(page).entries).toHaveCount(1);

    expect(record.requests.filter((request) => /\/assets\/geocache_client_bg-[\w-]{8}\.wasm$/.test(request))).toHaveLength(1);
    // global.css (loaded up front) and logbook.css (loaded with the lazy logbook) both apply.
    const styles = await page.evaluate(() => ({
      bodyMargin: getComputedStyle(document.body).margin,
      logbookMaxWidth: getComputedStyle(document.querySelector('main.logbook') ?? document.body).maxWidth,
    }));
    expect(styles).toEqual({ bodyMargin: '0px', logbookMaxWidth: '672px' });
    // The fixture's cspGuard fails the test on any violation; the record is checked here as well for clarity.
    expect(record.cspViolations).toEqual([]);
    expect(record.pageErrors).toEqual([]);
  });
});

test.describe('an attacker\'s script', () => {
  test.use({ expectCspViolations: true });

  test('injected inline does not run, and the browser reports the violation', async ({ page, record }) => {
    await page.goto('/');
    await expect(logbookPage(page).heading).toBeVisible();
    const outcome = await page.evaluate(async () => {
      const violation = new Promise<string>((resolve) => {
        document.addEventListener('securitypolicyviolation', (event) => resolve(event.effectiveDirective), { once: true });
      });
      const script = document.createElement('script');
      script.textContent = 'window.__injectedScriptRan = true;';
      document.head.append(script);
      const directive = await violation;
      return { directive, ran: (window as unknown as { __injectedScriptRan?: boolean }).__injectedScriptRan === true };
    });
    expect(outcome).toEqual({ directive: 'script-src-elem', ran: false });
    expect(record.cspViolations).toEqual(['script-src-elem blocked inline']);
  });

  test('passed to eval or new Function is refused', async ({ page }) => {
    await page.goto('/');
    const outcome = await page.evaluate(async () => {
      // Code Playwright evaluates directly may eval (DevTools allows it); a later task runs as the page's own code.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const attempt = (run: () => unknown) => {
        try {
          run();
          return 'ran';
        } catch (error) {
          return (error as Error).name;
        }
      };
      return {
        eval: attempt(() => window.eval('1 + 1')),
        // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the point: the policy must refuse it
        function: attempt(() => new Function('return 1')),
      };
    });
    expect(outcome).toEqual({ eval: 'EvalError', function: 'EvalError' });
  });
});

test.describe('the teaser', () => {
  test.use({ logbookOpen: false });

  test('downloads only its own code: no wasm, no logbook chunk, nothing from the backend', async ({ page, record, stack }) => {
    await page.goto('/');
    await expect(page.getByRole('main')).toBeVisible();
    await page.waitForLoadState('networkidle');
    const pageOrigin = new URL(stack.vite.url).origin;
    expect(record.requests.length).toBeGreaterThan(0);
    for (const request of record.requests) {
      expect(request, 'same-origin GET').toMatch(new RegExp(`^GET ${pageOrigin.replaceAll('.', '\\.')}/`));
      expect(request).not.toMatch(/\.wasm\b|geocache_client|logbook/);
    }
    const html = await (await fetch(stack.vite.url)).text();
    expect(html).not.toMatch(/\.wasm|geocache_client/);
  });
});
