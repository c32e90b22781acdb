import { fileURLToPath } from 'node:url';
import type { IndexHtmlTransformContext, Plugin } from 'vite';
import { INLINE_SCRIPT_ID } from './inline-early-paint.ts';
import { isOwnerPage } from './owner-page.ts';

type OutputBundle = NonNullable<IndexHtmlTransformContext['bundle']>;

const fromHere = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/**
 * What the logbook's start-up (src/features/logbook/first-paint/start-up.ts) imports lazily to paint the open
 * logbook's first entries: the visit's first read and the wasm client. Without a hint the browser finds each only
 * when the script before it has run (the entry, then these, then the .wasm): a round trip each, each long on a slow
 * mobile network. React and the logbook's code are left out on purpose: main.tsx loads them once the first entries
 * are painted, and a hint would have the browser download them first, sharing the slow network with the wasm client
 * and delaying the entries.
 */
export const FIRST_ENTRIES_MODULES = [
  fromHere('../src/features/logbook/reads/prefetch-entries.ts'),
  fromHere('../src/features/logbook/api/client.ts'),
];

interface ChunkLike {
  readonly type: 'chunk';
  readonly fileName: string;
  readonly facadeModuleId: string | null;
  readonly imports: readonly string[];
  readonly code: string;
}

/**
 * The files the first entries need, in the order to ask for them: each module's chunk after the chunks it imports,
 * then the .wasm assets those chunks load (not the live entries' .wasm, which a lazily imported chunk loads once the
 * entries are painted). Fails when one of the modules has no chunk of its own (a renamed file, or a build that
 * inlined it): the hints would silently stop helping.
 */
export function firstEntriesFiles(bundle: OutputBundle, modules: readonly string[] = FIRST_ENTRIES_MODULES): { scripts: string[]; wasm: string[] } {
  const chunks = new Map<string, ChunkLike>();
  const wasm: string[] = [];
  for (const output of Object.values(bundle)) {
    if (output.type === 'chunk') chunks.set(output.fileName, output);
    else if (output.fileName.endsWith('.wasm')) wasm.push(output.fileName);
  }
  const scripts: string[] = [];
  const visit = (fileName: string) => {
    const chunk = chunks.get(fileName);
    if (chunk === undefined || scripts.includes(fileName)) return;
    for (const imported of chunk.imports) visit(imported);
    scripts.push(fileName);
  };
  for (const module of modules) {
    const chunk = [...chunks.values()].find((candidate) => candidate.facadeModuleId === module);
    if (chunk === undefined) throw new Error(`preload-logbook: the build has no chunk for ${module}.`);
    visit(chunk.fileName);
  }
  const loaded = (file: string) => scripts.some((script) => chunks.get(script)?.code.includes(file.slice(file.lastIndexOf('/') + 1)));
  return { scripts, wasm: wasm.filter(loaded).sort() };
}

/** A file name that goes into an attribute's space-separated list as it is. */
const PLAIN_PATH = /^[\w./-]+$/;

/**
 * `vite build` with the logbook open: lists everything the first entries need on the inline script's element
 * (inline-early-paint.ts), which asks for it at once when the device has no entries of its own to paint (a first
 * visit): modulepreload for the scripts, a fetch preload for the .wasm, matching the client's own `fetch`. A repeat
 * visit paints the kept entries first and loads these afterwards. Attributes are not part of the script's hash in the
 * Content-Security-Policy, so this runs after it is written. Files index.html already names are left out.
 */
export function preloadLogbook({ logbookOpen }: { logbookOpen: boolean }): Plugin {
  let base = '/';
  return {
    name: 'geocache:preload-logbook',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        if (!logbookOpen || isOwnerPage(context)) return html;
        if (context.bundle === undefined) throw new Error('preload-logbook: index.html was transformed without the build\'s bundle.');
        const { scripts, wasm } = firstEntriesFiles(context.bundle);
        const unnamed = (file: string) => !html.includes(`"${base}${file}"`);
        const list = (files: string[]) => {
          const paths = files.filter(unnamed).map((file) => `${base}${file}`);
          const odd = paths.find((path) => !PLAIN_PATH.test(path));
          if (odd !== undefined) throw new Error(`preload-logbook: ${odd} cannot be listed in an attribute as it is.`);
          return paths.join(' ');
        };
        const tag = `<script id="${INLINE_SCRIPT_ID}">`;
        if (!html.includes(tag)) throw new Error(`preload-logbook: index.html has no ${tag} to list the first visit's files on.`);
        return html.replace(tag, () => `<script id="${INLINE_SCRIPT_ID}" data-first-visit-scripts="${list(scripts)}" data-first-visit-wasm="${list(wasm)}">`);
      },
    },
  };
}
