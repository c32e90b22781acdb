import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** What this file uses of wasm-bindgen's bundler output (geocache_client_bg.js). */
interface ClientBindings {
  __wbg_set_wasm(exports: Record<string, unknown>): void;
  createClient(supabaseUrl: string, supabaseKey: string): { free(): void };
}

/** The WebAssembly global (Node has it; the Node type definitions in use do not declare it). */
interface WebAssemblyApi {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, Record<string, unknown>>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
}

const BINDINGS_FILE = 'geocache_client_bg.js';
const WASM_FILE = 'geocache_client_bg.wasm';

const loaded = new Map<string, Promise<ClientBindings>>();

/** Instantiates the built client once per process, as wasm-bindgen's own entry file does in a bundler. */
function loadClient(packageDir: string): Promise<ClientBindings> {
  const cached = loaded.get(packageDir);
  if (cached) return cached;
  const bindings = (async () => {
    const bindingsFile = path.join(packageDir, BINDINGS_FILE);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(path.join(packageDir, WASM_FILE));
    } catch (error) {
      throw new Error(`${path.join(packageDir, WASM_FILE)} is missing: build the wasm package first (scripts/build-wasm.sh; npm run build does).`, {
        cause: error,
      });
    }
    const module = (await import(pathToFileURL(bindingsFile).href)) as Record<string, unknown>;
    const client = module as unknown as ClientBindings;
    const { WebAssembly } = globalThis as unknown as { WebAssembly: WebAssemblyApi };
    const { instance } = await WebAssembly.instantiate(bytes, { [`./${BINDINGS_FILE}`]: module });
    client.__wbg_set_wasm(instance.exports);
    const start = instance.exports.__wbindgen_start;
    if (typeof start === 'function') (start as () => void)();
    return client;
  })();
  loaded.set(packageDir, bindings);
  return bindings;
}

/**
 * The message of the error the page's own client raises for this configuration (e.g. "supabaseUrl is
 * required."), or null when it accepts it. The built wasm client decides, so the build and the page can never
 * disagree about what is valid.
 */
export async function clientConfigError(packageDir: string, supabaseUrl: string, supabaseKey: string): Promise<string | null> {
  const client = await loadClient(packageDir);
  try {
    client.createClient(supabaseUrl, supabaseKey).free();
    return null;
  } catch (error) {
    if (error instanceof Error && error.name === 'ConfigError') return error.message;
    throw error;
  }
}
