import { fileURLToPath } from 'node:url';
import { build, type Plugin, type Rolldown } from 'vite';
import { afterCharsetMeta } from './after-charset-meta.ts';
import { isOwnerPage } from './owner-page.ts';

const fromHere = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** The open logbook's inline script (it reads the kept copy and paints it before any script file has loaded). */
export const INLINE_SCRIPT_ENTRY = fromHere('../src/features/logbook/first-paint/inline-script.ts');

/** The inline script element's id, by which later steps of the build find it (preload-logbook.ts). */
export const INLINE_SCRIPT_ID = 'geocache-early-paint';

/**
 * `entry` and what it imports as one minified classic script, bundled on its own: no chunk of the page's build is
 * shared with it, since it runs before any of them has loaded.
 */
export async function bundleInlineScript(entry: string = INLINE_SCRIPT_ENTRY): Promise<string> {
  const result = await build({
    configFile: false,
    envDir: false,
    root: fromHere('..'),
    logLevel: 'warn',
    publicDir: false,
    resolve: { alias: { '@': fromHere('../src') } },
    build: {
      write: false,
      minify: true,
      reportCompressedSize: false,
      lib: { entry, formats: ['iife'], name: 'geocacheInlineScript', fileName: 'inline-script' },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const chunks = outputs.flatMap(({ output }) => output).filter((file): file is Rolldown.OutputChunk => file.type === 'chunk');
  const [chunk, ...more] = chunks;
  if (chunk === undefined || more.length > 0) throw new Error(`inline-early-paint: expected one script from ${entry}, got ${chunks.length}.`);
  const code = chunk.code.trim();
  // Either would end the script element early, or change how the HTML parser reads it.
  if (/<\/script|<!--/i.test(code)) throw new Error(`inline-early-paint: the bundled ${entry} cannot be written into a <script> element as is.`);
  return code;
}

/**
 * `vite build` with the logbook open: writes the inline script into index.html, first in <head> (before the
 * stylesheets, which would otherwise hold it until they have loaded), where the parser runs it at once. List it
 * before productionPage, which allows the script by its hash in the Content-Security-Policy it writes above it.
 */
export function inlineEarlyPaint({ logbookOpen }: { logbookOpen: boolean }, bundle: () => Promise<string> = bundleInlineScript): Plugin {
  let script: Promise<string> | undefined;
  return {
    name: 'geocache:inline-early-paint',
    apply: 'build',
    buildStart() {
      // Bundled beside the page's own build.
      if (logbookOpen) script ??= bundle();
    },
    async transformIndexHtml(html, context) {
      if (script === undefined || isOwnerPage(context)) return html;
      const code = await script;
      return afterCharsetMeta(html, `<script id="${INLINE_SCRIPT_ID}">${code}</script>`, 'the inline script');
    },
  };
}
