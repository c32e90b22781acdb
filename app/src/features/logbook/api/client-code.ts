import type * as ClientModule from './client';

let loading: Promise<typeof ClientModule> | undefined;
let loaded: typeof ClientModule | undefined;
/** The errors a load of the client's code failed with: the page reports those once, as "could not be loaded". */
const loadFailures = new WeakSet<object>();

/**
 * Loads the wasm client's code (its JavaScript, then the .wasm fetched and compiled) once. Nothing else in the
 * logbook's code imports it statically, so the entries kept on the device are shown while it loads, and the form
 * waits for it. A failed load is forgotten once it has settled, so the next call imports again (the browser may
 * hand back the same failure: see App.tsx).
 */
export function loadClientCode(): Promise<typeof ClientModule> {
  loading ??= import('./client').then(
    (module) => (loaded = module),
    (error: unknown) => {
      loading = undefined;
      if (typeof error === 'object' && error !== null) loadFailures.add(error);
      throw error;
    },
  );
  return loading;
}

/** The client's code once it has loaded (the form can sign), so a call then starts without waiting a turn. */
export function loadedClientCode(): typeof ClientModule | undefined {
  return loaded;
}

/** Whether `error` is a failed load of the client's code, which App.tsx reports, rather than a failed call. */
export function isClientLoadFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && loadFailures.has(error);
}
