import type * as LiveModule from 'geocache-live';

export type { RealtimeChannel, RealtimeClient, RealtimePostgresChangesPayload } from 'geocache-live';

let loading: Promise<typeof LiveModule> | undefined;
let loaded: typeof LiveModule | undefined;

/**
 * Loads the live entries' wasm client (wasm/pkg-live: Realtime only, its JavaScript then its own .wasm) once. It
 * is a module of its own, imported nowhere else, so a first visit downloads it only after its first entries are
 * painted: the logbook's wasm (client.ts) carries no Realtime. A failed load is forgotten once it has settled, so
 * the next listener imports again.
 */
export function loadLiveCode(): Promise<typeof LiveModule> {
  loading ??= import('geocache-live').then(
    (module) => (loaded = module),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The live client's code once it has loaded, so a listener then starts without waiting a turn. */
export function loadedLiveCode(): typeof LiveModule | undefined {
  return loaded;
}
