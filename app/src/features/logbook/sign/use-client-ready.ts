import { useEffect, useState } from 'react';
import { loadClientCode, loadedClientCode } from '../api/client-code';

/**
 * True once the wasm client's code has loaded: the form is usable from then on. Starts the load if nothing has yet.
 * A failed load leaves it false (the page then says the logbook could not be loaded: App.tsx).
 */
export function useClientReady(): boolean {
  const [ready, setReady] = useState(() => loadedClientCode() !== undefined);
  useEffect(() => {
    if (ready) return;
    let current = true;
    loadClientCode().then(
      () => {
        if (current) setReady(true);
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [ready]);
  return ready;
}
