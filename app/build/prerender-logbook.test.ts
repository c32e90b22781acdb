// @vitest-environment node
import { fileURLToPath } from 'node:url';
import { createElement, type ComponentType } from 'react';
import { renderToString } from 'react-dom/server';
import type { IndexHtmlTransformContext } from 'vite';
import { describe, expect, it, vi } from 'vitest';
import { logbookShellHtml, NOSCRIPT_NOTE, prerenderLogbook, withNoscriptNote, withoutStyleAttributes } from './prerender-logbook.ts';

// The component is TSX, which this Node-side project does not compile; Vitest loads it at run time.
const LOGBOOK_COMPONENT = '../src/features/logbook/components/logbook.tsx';
const LOGBOOK_FILE = fileURLToPath(new URL(LOGBOOK_COMPONENT, import.meta.url));

// Rendering never calls the client; the wasm package is not needed to load the component here.
vi.mock('geocache-client', () => ({ createClient: vi.fn() }));

const INDEX_HTML = '<html><head>\n  </head><body>\n    <div id="root"></div>\n  </body></html>';

/** Runs the plugin's hooks as `vite build` does, with a bundle whose logbook chunk brings `css`. */
async function transform(html: string, logbookOpen: boolean, css: string[] | null): Promise<string> {
  const plugin = prerenderLogbook({ logbookOpen });
  (plugin.configResolved as (config: { base: string }) => void)({ base: '/' });
  const chunk = { type: 'chunk', facadeModuleId: LOGBOOK_FILE, viteMetadata: { importedCss: new Set(css ?? []) } };
  const bundle = css === null ? {} : { 'assets/logbook.js': chunk };
  const { handler } = plugin.transformIndexHtml as { handler: (html: string, context: Partial<IndexHtmlTransformContext>) => Promise<string> };
  return handler(html, { bundle: bundle as unknown as IndexHtmlTransformContext['bundle'] });
}

describe('prerender-logbook', () => {
  it('renders the page\'s own Logbook component, its form taking input, with the note for browsers without scripts', async () => {
    const { Logbook } = (await import(LOGBOOK_COMPONENT)) as { Logbook: ComponentType };
    const shell = await logbookShellHtml();
    expect(shell).toBe(withNoscriptNote(withoutStyleAttributes(renderToString(createElement(Logbook)))));
    expect(shell).toContain('<h1>Geocache Signing Page</h1>');
    expect(shell).toContain('<h2 id="logbook-entries-heading">Logbook Entries</h2>');
    // The served form takes input before any script runs; the inline script takes its submits.
    expect(shell).not.toContain('disabled');
    expect(shell).toMatch(/<button [^>]*type="submit"[^>]*>Sign Logbook<\/button><\/form><noscript>/);
    expect(shell).not.toContain('style=');
  });

  it('writes the note once, after the sign form, and refuses a page without one', () => {
    expect(withNoscriptNote('<form class="sign-form"></form><form></form>')).toBe(`<form class="sign-form"></form>${NOSCRIPT_NOTE}<form></form>`);
    expect(() => withNoscriptNote('<p>no form</p>')).toThrow(/no sign form/);
  });

  it('drops style attributes only', () => {
    expect(withoutStyleAttributes('<ul class="a" style="padding-top:0"><li>style="x"</li></ul>')).toBe('<ul class="a"><li>style="x"</li></ul>');
  });

  it('writes the shell into the empty root and links the logbook\'s stylesheets while the logbook is open', async () => {
    const html = await transform(INDEX_HTML, true, ['assets/logbook-abc.css']);
    expect(html).toContain(`<div id="root">${await logbookShellHtml()}</div>`);
    expect(html).toMatch(/<link rel="stylesheet" crossorigin href="\/assets\/logbook-abc\.css">\s*<\/head>/);
  });

  it('leaves index.html alone while the logbook is closed', async () => {
    expect(await transform(INDEX_HTML, false, null)).toBe(INDEX_HTML);
  });

  it('refuses a build without the logbook chunk or an index.html without an empty root', async () => {
    await expect(transform(INDEX_HTML, true, null)).rejects.toThrow(/no chunk for src\/features\/logbook\/components\/logbook\.tsx/);
    await expect(transform('<body><div id="app"></div></body>', true, [])).rejects.toThrow(/no empty <div id="root">/);
  });
});
