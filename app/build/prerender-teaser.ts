import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Plugin } from 'vite';
import { teaserParagraphs } from '../src/content/teaser.ts';
import { isOwnerPage } from './owner-page.ts';

/** The empty mount point in index.html that the teaser is written into. */
const EMPTY_ROOT = /<div id="root">\s*<\/div>/;

/**
 * The teaser as HTML: the markup of src/features/teaser/components/teaser.tsx (its test holds the two
 * to the same output), built here from the same content file without loading the component's TSX and
 * CSS into Node. React escapes the text, so the owner's text stays text.
 */
export function teaserHtml(paragraphs: readonly string[] = teaserParagraphs): string {
  return renderToStaticMarkup(
    createElement(
      'main',
      { className: 'teaser' },
      paragraphs.map((paragraph, index) => createElement('p', { key: index }, paragraph)),
    ),
  );
}

/**
 * Writes the teaser into index.html (in `vite build` and in the dev server) while the logbook is closed,
 * so its text is in the HTML as served and painted before any script runs; src/app/main.tsx then loads
 * no React, client or wasm. Its stylesheet is linked from the entry (main.tsx imports it), so the first
 * paint is styled without an inline style the Content-Security-Policy would refuse.
 */
export function prerenderTeaser(): Plugin {
  let logbookOpen = false;
  return {
    name: 'geocache:prerender-teaser',
    configResolved(config) {
      // The same switch the page reads (src/config/env.ts): anything but "true" is the teaser.
      logbookOpen = (config.env as Record<string, unknown>).VITE_LOGBOOK_OPEN === 'true';
    },
    transformIndexHtml(html, context) {
      if (logbookOpen || isOwnerPage(context)) return html;
      if (!EMPTY_ROOT.test(html)) {
        throw new Error('prerender-teaser: index.html has no empty <div id="root"></div> to write the teaser into.');
      }
      return html.replace(EMPTY_ROOT, () => `<div id="root">${teaserHtml()}</div>`);
    },
  };
}
