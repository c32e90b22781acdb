import type { ComponentType } from 'react';

export { loadClientCode } from '@/features/logbook/api/client-code';

let loading: Promise<ComponentType> | undefined;
let loaded: ComponentType | undefined;

/**
 * Loads the logbook's code once (not the wasm client's: `loadClientCode` loads that, alongside, so the entries kept
 * on the device are shown before it arrives). main.tsx starts it before React has loaded, so the page usually has
 * it by its first render; nothing imports it while the logbook is closed. A failed load (network, 404,
 * Content-Security-Policy) is forgotten once it has settled, so the next call imports again.
 */
export function loadLogbook(): Promise<ComponentType> {
  loading ??= import('@/features/logbook/components/logbook').then(
    ({ Logbook }) => (loaded = Logbook),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The logbook component if its code has loaded. */
export function loadedLogbook(): ComponentType | undefined {
  return loaded;
}
