/**
 * What a first visit's first entries need besides the entry script: the visit's read and the wasm client (chunks, in
 * the order to ask for them, and the .wasm). The build lists them on the inline script's element
 * (app/build/preload-logbook.ts), since their names are hashed.
 */
export interface FirstVisitFiles {
  readonly scripts: readonly string[];
  readonly wasm: readonly string[];
}

/** The lists written on the inline script's element; empty where there are none (or no such element). */
export function firstVisitFilesOf(script: Element | null): FirstVisitFiles {
  const list = (name: string) => (script?.getAttribute(name) ?? '').split(' ').filter((file) => file !== '');
  return { scripts: list('data-first-visit-scripts'), wasm: list('data-first-visit-wasm') };
}

/**
 * Asks for them at once (modulepreload for the scripts, a fetch preload for the .wasm, as the client fetches it), so
 * the browser downloads them while the entry script loads instead of one round trip after another, each long on a
 * slow mobile network. Only a visit with nothing to paint from the device asks: on a repeat visit each request
 * costs the main thread time the kept entries' first frame would otherwise have, and the files are not needed
 * before that frame.
 */
export function preloadFirstVisit(document: Document, files: FirstVisitFiles): void {
  const link = (attributes: Record<string, string>) => {
    const element = document.createElement('link');
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    return element;
  };
  const wasm = files.wasm.map((href) => link({ rel: 'preload', as: 'fetch', type: 'application/wasm', crossorigin: 'anonymous', href }));
  const scripts = files.scripts.map((href) => link({ rel: 'modulepreload', crossorigin: 'anonymous', href }));
  document.head.append(...wasm, ...scripts);
}
