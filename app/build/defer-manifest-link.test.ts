// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { deferManifestLink } from './defer-manifest-link.ts';

function transform(html: string, logbookOpen: boolean): string {
  const { transformIndexHtml } = deferManifestLink({ logbookOpen });
  const { handler } = transformIndexHtml as { handler: (html: string) => string };
  return handler(html);
}

// As vite-plugin-pwa writes it, right before </head>.
const INDEX_HTML =
  '<html><head>\n<link rel="preload" as="fetch" href="/assets/a.wasm">\n' +
  '<link rel="manifest" href="/manifest.webmanifest"></head><body></body></html>';

describe('defer-manifest-link', () => {
  it("takes the manifest's link out of the open logbook's index.html, leaving everything else", () => {
    expect(transform(INDEX_HTML, true)).toBe('<html><head>\n<link rel="preload" as="fetch" href="/assets/a.wasm"></head><body></body></html>');
  });

  it('leaves the teaser alone: it waits for no entries', () => {
    expect(transform(INDEX_HTML, false)).toBe(INDEX_HTML);
  });

  it('fails the build when there is no manifest link to take out', () => {
    expect(() => transform('<html><head></head></html>', true)).toThrow(/no <link rel="manifest">/);
  });
});
