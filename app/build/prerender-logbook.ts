import { fileURLToPath } from 'node:url';
import { createElement, type ComponentType } from 'react';
import { renderToString } from 'react-dom/server';
import { runnerImport, type IndexHtmlTransformContext, type Plugin } from 'vite';
import { isOwnerPage } from './owner-page.ts';

type OutputBundle = NonNullable<IndexHtmlTransformContext['bundle']>;

const fromHere = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** The page's logbook component, rendered as the page renders it. */
const LOGBOOK_COMPONENT = fromHere('../src/features/logbook/components/logbook.tsx');

/** The empty mount point in index.html that the shell is written into. */
const EMPTY_ROOT = /<div id="root">\s*<\/div>/;

/** The end of the sign form, after which the served page says what signing needs. */
const FORM_END = '</form>';

/** What the served form says where scripts do not run: its own submission is refused by the page's policy. */
export const NOSCRIPT_NOTE = '<noscript><p class="sign-noscript">Signing the logbook needs JavaScript, which is off in this browser.</p></noscript>';

/**
 * `html` with the note that signing needs JavaScript after the sign form, for browsers without it: the served form
 * takes input from its first paint, and the inline script takes its submits (first-paint/served-submits.ts).
 */
export function withNoscriptNote(html: string): string {
  if (!html.includes(FORM_END)) throw new Error('prerender-logbook: the logbook rendered no sign form.');
  return html.replace(FORM_END, () => `${FORM_END}${NOSCRIPT_NOTE}`);
}

/** A style attribute, which the Content-Security-Policy (no 'unsafe-inline') refuses in served HTML. */
const STYLE_ATTRIBUTE = /\sstyle="[^"]*"/g;

/**
 * `html` without style attributes: React's inline styles are allowed once it sets them from a script, not as
 * written in the HTML. The prerendered shell holds only the list's empty padding, which the stylesheet's layout
 * does not need before any entry is shown.
 */
export function withoutStyleAttributes(html: string): string {
  return html.replace(STYLE_ATTRIBUTE, '');
}

/**
 * The open logbook as HTML, rendered in Node from the page's own component (src/features/logbook/components/
 * logbook.tsx, loaded through Vite, so its TSX, CSS imports and `@/` paths work) before any entry is read: the
 * title, the sign form (taking input before any script runs) and the entries' heading. The wasm client is replaced by a stub that rendering
 * never calls.
 */
export async function logbookShellHtml(): Promise<string> {
  let Logbook: ComponentType;
  try {
    const { module } = await runnerImport<{ Logbook: ComponentType }>(LOGBOOK_COMPONENT, {
      root: fromHere('..'),
      logLevel: 'error',
      resolve: {
        alias: { '@': fromHere('../src'), 'geocache-client': fromHere('./prerender-client-stub.ts') },
      },
      plugins: [withoutStylesheets()],
    });
    Logbook = module.Logbook;
    return withNoscriptNote(withoutStyleAttributes(renderToString(createElement(Logbook))));
  } catch (error) {
    throw new Error(`prerender-logbook: could not render the logbook at build time: ${String(error)}`, { cause: error });
  }
}

const NO_STYLESHEET = '\0geocache:prerender-no-stylesheet';

/** Stylesheet imports as an empty module: the shell's markup needs none, and the page links the files itself. */
function withoutStylesheets(): Plugin {
  return {
    name: 'geocache:prerender-without-stylesheets',
    enforce: 'pre',
    resolveId: (source) => (/\.css(\?|$)/.test(source) ? NO_STYLESHEET : null),
    load: (id) => (id === NO_STYLESHEET ? 'export {};' : null),
  };
}

/** The stylesheets the lazily loaded logbook chunk brings (its CSS files, as the build named them). */
export function logbookStylesheets(bundle: OutputBundle): string[] {
  for (const output of Object.values(bundle)) {
    if (output.type !== 'chunk' || output.facadeModuleId !== LOGBOOK_COMPONENT) continue;
    const css = (output as { viteMetadata?: { importedCss: Set<string> } }).viteMetadata?.importedCss;
    return [...(css ?? [])];
  }
  throw new Error('prerender-logbook: the build has no chunk for src/features/logbook/components/logbook.tsx.');
}

/**
 * `vite build` with the logbook open: writes the logbook's shell (prerendered from its component) into index.html
 * and links the logbook's stylesheet, so the title, the form and the entries' heading are painted, styled, before
 * any script runs, and offline from the service worker's copy. main.tsx then renders the page over it in one
 * commit (React replaces the root's content), keeping what was typed into the form. Vite's loader skips a stylesheet that is
 * already linked, so the logbook's is not loaded twice.
 */
export function prerenderLogbook({ logbookOpen }: { logbookOpen: boolean }): Plugin {
  let base = '/';
  return {
    name: 'geocache:prerender-logbook',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      async handler(html, context) {
        if (!logbookOpen || isOwnerPage(context)) return html;
        if (context.bundle === undefined) throw new Error('prerender-logbook: index.html was transformed without the build\'s bundle.');
        if (!EMPTY_ROOT.test(html)) {
          throw new Error('prerender-logbook: index.html has no empty <div id="root"></div> to write the logbook into.');
        }
        const shell = await logbookShellHtml();
        const links = logbookStylesheets(context.bundle)
          .map((file) => `  <link rel="stylesheet" crossorigin href="${base}${file}">\n  `)
          .join('');
        return html.replace(EMPTY_ROOT, () => `<div id="root">${shell}</div>`).replace('</head>', () => `${links}</head>`);
      },
    },
  };
}
