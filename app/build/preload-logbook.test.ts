// @vitest-environment node
import type { IndexHtmlTransformContext } from 'vite';
import { describe, expect, it } from 'vitest';
import { firstEntriesFiles, FIRST_ENTRIES_MODULES, preloadLogbook } from './preload-logbook.ts';

type Bundle = NonNullable<IndexHtmlTransformContext['bundle']>;

const [PREFETCH, CLIENT] = FIRST_ENTRIES_MODULES as [string, string];
const RENDER_APP = '/app/src/app/render-app.tsx';
const LOGBOOK = '/app/src/features/logbook/components/logbook.tsx';

const chunk = (fileName: string, facadeModuleId: string | null, imports: string[] = [], code = '') => ({
  type: 'chunk',
  fileName,
  facadeModuleId,
  imports,
  code,
});

/** A build as Rolldown shapes it: each lazily loaded module in a chunk of its own, sharing some chunks. */
function bundle(): Bundle {
  const outputs = [
    chunk('assets/index.js', '/app/src/app/main.tsx', ['assets/page-config.js']),
    chunk('assets/page-config.js', null),
    chunk('assets/jsx-runtime.js', null),
    chunk('assets/render-app.js', RENDER_APP, ['assets/jsx-runtime.js', 'assets/page-config.js']),
    chunk('assets/logbook.js', LOGBOOK, ['assets/jsx-runtime.js', 'assets/copy.js']),
    chunk('assets/copy.js', null),
    chunk('assets/prefetch.js', PREFETCH, ['assets/copy.js']),
    chunk('assets/client.js', CLIENT, ['assets/page-config.js', 'assets/pkg-logbook.js']),
    chunk('assets/pkg-logbook.js', null, [], 'const url = "/assets/geocache_client_bg-abc.wasm";'),
    // The live entries' client: imported lazily, once the first entries are painted.
    chunk('assets/live-code.js', '/app/src/features/logbook/api/live-code.ts', [], 'import("./pkg-live.js")'),
    chunk('assets/pkg-live.js', null, [], 'const url = "/assets/geocache_live_bg-def.wasm";'),
    chunk('assets/register-service-worker.js', '/app/src/app/service-worker/register-service-worker.ts'),
    { type: 'asset', fileName: 'assets/geocache_client_bg-abc.wasm' },
    { type: 'asset', fileName: 'assets/geocache_live_bg-def.wasm' },
    { type: 'asset', fileName: 'assets/logbook.css' },
  ];
  return Object.fromEntries(outputs.map((output) => [output.fileName, output])) as unknown as Bundle;
}

function transform(html: string, logbookOpen: boolean, built: Bundle = bundle()): string {
  const plugin = preloadLogbook({ logbookOpen });
  (plugin.configResolved as (config: { base: string }) => void)({ base: '/' });
  const { handler } = plugin.transformIndexHtml as { handler: (html: string, context: Partial<IndexHtmlTransformContext>) => string };
  return handler(html, { bundle: built });
}

const INDEX_HTML =
  '<html><head>\n<script id="geocache-early-paint">(function(){})();</script>\n' +
  '<script type="module" crossorigin src="/assets/index.js"></script>\n' +
  '<link rel="modulepreload" crossorigin href="/assets/page-config.js">\n</head><body></body></html>';

/** The space-separated list in one of the inline script's attributes. */
function listed(html: string, attribute: string): string[] {
  const value = new RegExp(`<script id="geocache-early-paint"[^>]*\\s${attribute}="([^"]*)"`).exec(html)?.[1];
  if (value === undefined) throw new Error(`no ${attribute} on the inline script`);
  return value.split(' ');
}

describe('preload-logbook', () => {
  it("names the first entries' chunks, each after the chunks it imports, and their .wasm; nothing loaded later", () => {
    expect(firstEntriesFiles(bundle())).toEqual({
      scripts: ['assets/copy.js', 'assets/prefetch.js', 'assets/page-config.js', 'assets/pkg-logbook.js', 'assets/client.js'],
      wasm: ['assets/geocache_client_bg-abc.wasm'],
    });
  });

  it("lists them on the inline script's element, leaving out what the page already names; its text untouched", () => {
    const html = transform(INDEX_HTML, true);
    expect(listed(html, 'data-first-visit-wasm')).toEqual(['/assets/geocache_client_bg-abc.wasm']);
    expect(listed(html, 'data-first-visit-scripts')).toEqual(['/assets/copy.js', '/assets/prefetch.js', '/assets/pkg-logbook.js', '/assets/client.js']);
    // Its hash in the Content-Security-Policy covers the text only.
    expect(html).toContain('>(function(){})();</script>');
    // Loaded once the first entries are painted (main.tsx): a hint would download them before.
    for (const file of ['render-app', 'logbook', 'jsx-runtime', 'register-service-worker']) expect(html).not.toContain(`/assets/${file}.js`);
    // The live entries' client is fetched after the first entries, never ahead of them.
    expect(html).not.toMatch(/geocache_live_bg|live-code|pkg-live/);
    // Nothing is linked from the page itself: a repeat visit paints its kept entries without them.
    expect(html).not.toMatch(/<link[^>]*(geocache_client_bg|prefetch|client\.js)/);
  });

  it('fails the build when the page has no inline script to list them on', () => {
    expect(() => transform(INDEX_HTML.replace(' id="geocache-early-paint"', ''), true)).toThrow(/no <script id="geocache-early-paint">/);
  });

  it('leaves the teaser alone', () => {
    expect(transform(INDEX_HTML, false)).toBe(INDEX_HTML);
  });

  it('fails the build when a module it should link has no chunk of its own', () => {
    const built = bundle();
    delete (built as Record<string, unknown>)['assets/client.js'];
    expect(() => firstEntriesFiles(built)).toThrow(/no chunk for .*client\.ts/);
  });
});
