// @vitest-environment node
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { bundleInlineScript, inlineEarlyPaint } from './inline-early-paint.ts';

function transform(html: string, logbookOpen: boolean, code: string): Promise<string> {
  const plugin = inlineEarlyPaint({ logbookOpen }, () => Promise.resolve(code));
  (plugin.buildStart as () => void)();
  return (plugin.transformIndexHtml as (html: string) => Promise<string>)(html);
}

describe('bundleInlineScript', () => {
  it('is one classic script (no module syntax) that can be written into a <script> element as it is', async () => {
    const code = await bundleInlineScript();
    // Compiled (not run) as a classic script: an import or export statement would throw here.
    expect(() => new Script(code)).not.toThrow();
    expect(code).not.toMatch(/<\/script|<!--/i);
    // What it does is tested beside its source (first-paint/early-paint.test.ts) and in the browser (e2e).
    expect(code).toContain('geocache-logbook-copy');
    expect(code).toContain('data-first-visit-scripts');
  });
});

describe('inlineEarlyPaint', () => {
  it("writes the script right after <meta charset>, before the page's stylesheets", async () => {
    const html = await transform('<head><meta charset="UTF-8" /><link rel="stylesheet" href="/a.css"></head>', true, 'paint()');
    expect(html).toBe('<head><meta charset="UTF-8" />\n    <script id="geocache-early-paint">paint()</script><link rel="stylesheet" href="/a.css"></head>');
  });

  it('leaves the teaser alone', async () => {
    const html = '<head><meta charset="UTF-8" /></head>';
    expect(await transform(html, false, 'paint()')).toBe(html);
  });
});
