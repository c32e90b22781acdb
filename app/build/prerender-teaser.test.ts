import { createElement, type ComponentType } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { ResolvedConfig } from 'vite';
import { describe, expect, it } from 'vitest';
import { teaserParagraphs } from '../src/content/teaser.ts';
import { prerenderTeaser, teaserHtml } from './prerender-teaser.ts';

// The component is TSX, which this Node-side project does not compile; Vitest loads it at run time.
const TEASER_COMPONENT = '../src/features/teaser/components/teaser.tsx';

const INDEX_HTML = '<html><head></head><body>\n    <div id="root"></div>\n    <script type="module" src="/src/app/main.tsx"></script>\n  </body></html>';

/** Runs the plugin's hooks as Vite does, with VITE_LOGBOOK_OPEN set as given. */
function transform(html: string, logbookOpen: string | undefined): string {
  const plugin = prerenderTeaser();
  const configResolved = plugin.configResolved as (config: ResolvedConfig) => void;
  configResolved({ env: { VITE_LOGBOOK_OPEN: logbookOpen } } as unknown as ResolvedConfig);
  const transformIndexHtml = plugin.transformIndexHtml as (html: string) => string;
  return transformIndexHtml(html);
}

describe('prerender-teaser', () => {
  it('renders exactly the markup of the Teaser component, from the same content file', async () => {
    const { Teaser } = (await import(TEASER_COMPONENT)) as { Teaser: ComponentType };
    expect(teaserHtml()).toBe(renderToStaticMarkup(createElement(Teaser)));
    for (const paragraph of teaserParagraphs) expect(teaserHtml()).toContain(`<p>${paragraph}</p>`);
  });

  it('keeps the owner’s text as text', () => {
    const html = teaserHtml(['<script>alert("x")</script> & <b>bold</b>']);
    expect(html).toBe(
      '<main class="teaser"><p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;</p></main>',
    );
  });

  it('writes the teaser into the empty root while the logbook is closed', () => {
    for (const closed of [undefined, 'false', 'TRUE', '']) {
      const html = transform(INDEX_HTML, closed);
      expect(html).toContain(`<div id="root">${teaserHtml()}</div>`);
      expect(html).toContain('<script type="module" src="/src/app/main.tsx"></script>');
    }
  });

  it('leaves index.html alone when the logbook is open', () => {
    expect(transform(INDEX_HTML, 'true')).toBe(INDEX_HTML);
  });

  it('refuses an index.html without an empty root rather than serving a page without the teaser', () => {
    expect(() => transform('<body><div id="app"></div></body>', 'false')).toThrow(/no empty <div id="root">/);
  });
});
