import { loadClientCode } from '../api/client-code';
import { signLogbook } from '../api/sign-logbook';
import type { KeptEntry } from '../types';
import { earlySignsOf, type EarlySign } from './early-sign-handle';
import { beginSign } from './signs-in-flight';

/** A sign pressed before the logbook's form took over, and its first insert if the start-up already sent it. */
export interface TakenSign {
  readonly sign: EarlySign;
  /** The insert sent with the sign's key; undefined when nothing was sent yet (the logbook sends it). */
  readonly sent: Promise<KeptEntry | undefined> | undefined;
}

let sent: { readonly sign: EarlySign; readonly insert: Promise<KeptEntry | undefined> } | undefined;

/**
 * Sends a sign pressed in the served form (the inline script took it: first-paint/served-submits.ts) the moment the
 * wasm client has loaded, online, before React and the logbook's code have: on a weak link those arrive later. It is
 * counted as in flight from the press until it is sent, or until the logbook takes it over (takeEarlySign). Offline,
 * it waits for the logbook, which keeps it in the outbox.
 */
export function sendEarlySigns(window: Window): void {
  const signs = earlySignsOf(window);
  if (signs === undefined) return;
  const pressed = () => {
    const sign = signs.pending;
    if (sign === undefined || sent?.sign === sign) return;
    const end = beginSign();
    loadClientCode().then(
      () => {
        // Taken by the logbook meanwhile, or offline: the logbook sends it, or keeps it in the outbox.
        if (signs.pending !== sign || !navigator.onLine) return end();
        const insert = signLogbook({ name: sign.name, message: sign.message }, { idempotencyKey: sign.idempotencyKey });
        sent = { sign, insert };
        insert.then(end, end);
      },
      // The logbook reports a failed load of the client and sends the sign itself.
      end,
    );
  };
  signs.onPress = pressed;
  pressed();
}

/** The sign pressed in the served form and not yet taken by the logbook, if any. */
export function pendingEarlySign(window: Window): EarlySign | undefined {
  return earlySignsOf(window)?.pending;
}

/**
 * The logbook's form takes over from the served one: the sign pressed there, if any, is its own from now on (once:
 * a later call finds none), with the insert already sent for it. The sign stays in flight through the
 * logbook's own sign.
 */
export function takeEarlySign(window: Window): TakenSign | undefined {
  const signs = earlySignsOf(window);
  if (signs === undefined) return undefined;
  signs.onPress = undefined;
  const sign = signs.pending;
  signs.pending = undefined;
  if (sign === undefined) return undefined;
  return { sign, sent: sent?.sign === sign ? sent.insert : undefined };
}
