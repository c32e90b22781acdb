import { useCallback, useEffect, useRef, useState } from 'react';
import { signLogbook, signRequest } from '../api/sign-logbook';
import { couldNotReachServer } from '../outbox/queueable';
import type { KeptEntry, NewEntry, PlainRequest } from '../types';
import type { TakenSign } from './early-sign';
import { OfflineSignError } from './offline-sign-error';
import { beginSign } from './signs-in-flight';

/** How a sign ended. */
export type SignResult =
  /**
   * Stored: `stored` is the entry as the server stored it (undefined when its answer did not hold it). The sign still
   * counts as in flight until `shown` is called (once the list shows it), so what waits for signs does not compete
   * with the read that shows it.
   */
  | { readonly status: 'signed'; readonly stored: KeptEntry | undefined; readonly shown: () => void }
  /** Kept on the device (the server could not be reached): it is sent when the connection returns. */
  | { readonly status: 'saved' }
  /** Not stored: already logged with `Error inserting log:`. */
  | { readonly status: 'failed'; readonly error: unknown }
  /** Another sign was in flight, or the caller went away. */
  | { readonly status: 'ignored' };

/**
 * Where a sign that cannot reach the server is kept: resolves to false when the device cannot keep it.
 * `pendingKey` names the key of a kept sign of the same text, so signing it again does not double it.
 */
export interface SignKeeper {
  readonly keep: (entry: NewEntry, request: PlainRequest) => Promise<boolean>;
  readonly pendingKey: (entry: NewEntry) => string | undefined;
  readonly forget: (key: string) => Promise<void>;
}

export interface SignLogbookState {
  /**
   * Signs one entry; see `SignResult`. With `early`, the sign pressed in the served form before this one took over
   * (sign/early-sign.ts): it keeps the key it was given, and the insert already sent for it is the first attempt.
   */
  readonly sign: (entry: NewEntry, early?: TakenSign) => Promise<SignResult>;
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
 * key, and a success forgets the key. With a `keeper`, a sign made offline, or one that failed
 * because the server could not be reached, is kept on the device with its key instead; one the
 * server refused is not. Every sign that does not reach the server logs `Error inserting log:`, kept or not.
 */
export function useSignLogbook(keeper?: SignKeeper): SignLogbookState {
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

  const latestKeeper = useRef(keeper);
  useEffect(() => {
    latestKeeper.current = keeper;
  });

  const sign = useCallback(async (entry: NewEntry, early?: TakenSign): Promise<SignResult> => {
    if (inFlight.current) return { status: 'ignored' };
    inFlight.current = true;
    setPending(true);
    const endSign = beginSign();
    const keeper = latestKeeper.current;
    const last = failed.current;
    const kept = keeper?.pendingKey(entry);
    const again = last !== null && last.name === entry.name && last.message === entry.message;
    const idempotencyKey = early?.sign.idempotencyKey ?? kept ?? (again ? last.idempotencyKey : undefined);
    const options = idempotencyKey === undefined ? undefined : { idempotencyKey };
    /** Keeps the sign on the device; resolves to the key it is kept under, or null when it is not kept. */
    const keepOnDevice = async (key: string | undefined): Promise<string | null> => {
      if (keeper === undefined) return null;
      const request = await signRequest(entry, key === undefined ? undefined : { idempotencyKey: key }).catch(() => null);
      if (request === null || !(await keeper.keep(entry, request))) return null;
      const keptKey = request.headers['idempotency-key'] ?? '';
      failed.current = { name: entry.name, message: entry.message, idempotencyKey: keptKey };
      return keptKey;
    };
    try {
      // Offline the insert cannot arrive: keep it at once rather than wait out the client's resends. It did not
      // reach the server, so the console says so as for a sign kept after its resends failed.
      // An insert already sent is awaited instead: it may be stored.
      const keptOffline = navigator.onLine || early?.sent !== undefined ? null : await keepOnDevice(idempotencyKey);
      if (keptOffline !== null) {
        console.error('Error inserting log:', new OfflineSignError(keptOffline));
        return { status: 'saved' };
      }
      const stored = await (early?.sent ?? (options === undefined ? signLogbook(entry) : signLogbook(entry, options)));
      failed.current = null;
      if (kept !== undefined) await keeper?.forget(kept);
      return mounted.current ? { status: 'signed', stored, shown: beginSign() } : { status: 'ignored' };
    } catch (error) {
      const key = keyOf(error);
      failed.current = key === undefined ? null : { name: entry.name, message: entry.message, idempotencyKey: key };
      console.error('Error inserting log:', error);
      if (couldNotReachServer(error) && key !== undefined && (await keepOnDevice(key)) !== null) return { status: 'saved' };
      return { status: 'failed', error };
    } finally {
      endSign();
      inFlight.current = false;
      if (mounted.current) setPending(false);
    }
  }, []);

  return { sign, pending };
}
