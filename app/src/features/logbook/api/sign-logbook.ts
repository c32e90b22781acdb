import { useCallback, useEffect, useRef, useState } from 'react';
import type { NewEntry } from 'geocache-client';
import { getClient } from './client';

export type { NewEntry };

/** Inserts one entry exactly as given (no trimming). Rejects with the client's error. */
export async function signLogbook(entry: NewEntry): Promise<void> {
  // Awaited inside the async function so a client-creation failure becomes a rejection too.
  await getClient().signLogbook(entry);
}

export interface SignLogbookState {
  /**
   * Resolves to true once the entry is stored (and the caller is still mounted); false if the call
   * failed (already logged) or was refused because another sign is in flight.
   */
  readonly sign: (entry: NewEntry) => Promise<boolean>;
  /** True while a sign is in flight. */
  readonly pending: boolean;
}

/** Signs the logbook, one entry at a time: a second sign while one is in flight is refused. */
export function useSignLogbook(): SignLogbookState {
  const [pending, setPending] = useState(false);
  // The ref closes the gap before the disabled button re-renders (two submits in one tick).
  const inFlight = useRef(false);
  const mounted = useRef(false);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const sign = useCallback(async (entry: NewEntry) => {
    if (inFlight.current) return false;
    inFlight.current = true;
    setPending(true);
    try {
      await signLogbook(entry);
      return mounted.current;
    } catch (error) {
      console.error('Error inserting log:', error);
      return false;
    } finally {
      inFlight.current = false;
      if (mounted.current) setPending(false);
    }
  }, []);

  return { sign, pending };
}
