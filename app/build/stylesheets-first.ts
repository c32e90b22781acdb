import type { Plugin } from 'vite';

/** A stylesheet link as Vite and the logbook's prerender write them. */
const STYLESHEET = /[ \t]*<link\b[^>]*\brel="stylesheet"[^>]*>\n?/g;
/** The first script file or module hint the head names: the stylesheets go right before it. */
const FIRST_SCRIPT_FILE = /[ \t]*<(script\b[^>]*\bsrc=|link\b[^>]*\brel="modulepreload")/;

/**
 * `html` with the stylesheets its head links moved before its script files and module hints. The served form is
 * painted, and takes input, once they have arrived (they block rendering); the scripts are needed only later. Named
 * first, they are asked for first: on a browser's few connections per host and a slow link, a stylesheet named after
 * half a dozen module hints waits a round trip for a free connection.
 */
export function stylesheetsFirst(html: string): string {
  const headEnd = html.indexOf('</head>');
  if (headEnd < 0) return html;
  const head = html.slice(0, headEnd);
  const links = head.match(STYLESHEET) ?? [];
  const withoutLinks = head.replace(STYLESHEET, '');
  const first = FIRST_SCRIPT_FILE.exec(withoutLinks);
  if (links.length === 0 || first === null) return html;
  const moved = links.map((link) => `    ${link.trim()}\n`).join('');
  return `${withoutLinks.slice(0, first.index)}${moved}${withoutLinks.slice(first.index)}${html.slice(headEnd)}`;
}

/** `vite build`: orders the served page's head as stylesheetsFirst says, once every other step has written it. */
export function stylesheetsFirstPlugin(): Plugin {
  return {
    name: 'geocache:stylesheets-first',
    apply: 'build',
    transformIndexHtml: { order: 'post', handler: (html) => stylesheetsFirst(html) },
  };
}
