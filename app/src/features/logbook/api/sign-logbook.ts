import { useCallback, useEffect, useRef, useState } from 'react';
import type { NewEntry, SignOptions } from 'geocache-client';
import { getClient } from './client';

export type { NewEntry, SignOptions };

/**
 * Inserts one entry exactly as given (no trimming). With `options.idempotencyKey` (the key of an
 * earlier failed attempt of the same sign) the entry is stored at most once in all. Rejects with
 * the client's error, whose `idempotencyKey` signs it again without doubling it.
 */
export async function signLogbook(entry: NewEntry, options?: SignOptions): Promise<void> {
  // Awaited inside the async function so a client-creation failure becomes a rejection too.
  const client = getClient();
  await (options === undefined ? client.signLogbook(entry) : client.signLogbook(entry, options));
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

/** A failed sign's text and key: signing the same text again reuses the key. */
interface FailedSign {
  readonly name: string;
  readonly message: string;
  readonly idempotencyKey: string;
}

/** The key a client error carries, if any. */
function keyOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('idempotencyKey' in error)) return undefined;
  const key = error.idempotencyKey;
  return typeof key === 'string' ? key : undefined;
}

/**
 * Signs the logbook, one entry at a time: a second sign while one is in flight is refused. After
 * a failure, signing the unchanged name and message again sends the failed sign's key, so an
 * attempt that was stored after all is not stored twice; a changed text is a new sign with a new
 * key, and a success forgets the key.
 */
export function useSignLogbook(): SignLogbookState {
  const [pending, setPending] = useState(false);
  // The ref closes the gap before the disabled button re-renders (two submits in one tick).
  const inFlight = useRef(false);
  const mounted = useRef(false);
  const failed = useRef<FailedSign | null>(null);

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
    const last = failed.current;
    const again = last !== null && last.name === entry.name && last.message === entry.message;
    try {
      await (again ? signLogbook(entry, { idempotencyKey: last.idempotencyKey }) : signLogbook(entry));
      failed.current = null;
      return mounted.current;
    } catch (error) {
      const idempotencyKey = keyOf(error);
      failed.current = idempotencyKey === undefined ? null : { name: entry.name, message: entry.message, idempotencyKey };
      console.error('Error inserting log:', error);
      return false;
    } finally {
      inFlight.current = false;
      if (mounted.current) setPending(false);
    }
  }, []);

  return { sign, pending };
}
