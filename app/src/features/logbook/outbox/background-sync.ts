import { env } from '@/config/env';
import { deliverOutbox, deliveryTimeoutMs, withOutboxLock } from './deliver';
import { openOutbox } from './outbox-store';

/** The Background Sync tag the page registers and the service worker's `sync` event answers. */
export const OUTBOX_SYNC_TAG = 'logbook-outbox';

/**
 * Sends the signs waiting in the device's outbox, for the service worker's `sync` event:
 * `if (event.tag === OUTBOX_SYNC_TAG) event.waitUntil(drainLogbookOutbox())`. It replays the stored requests
 * with `fetch` (no wasm), under the same Web Lock as the page's tabs, and rejects while signs are still waiting,
 * so the browser tries the sync again later. A sign the server refuses leaves the outbox; its refusal is kept, and
 * the open tabs (told over the outbox's channel) or else the next visit report it, once.
 */
export async function drainLogbookOutbox(): Promise<void> {
  const store = await openOutbox();
  if (store === null) return;
  const report = await withOutboxLock(() => deliverOutbox(store, (url, init) => fetch(url, init), deliveryTimeoutMs(env.requestTimeoutMs)));
  if (report.waiting > 0) throw new Error(`${report.waiting} sign(s) still waiting to be sent`);
}

interface SyncRegistration {
  readonly sync?: { register(tag: string): Promise<void> };
}

/**
 * Asks the service worker, where there is one with Background Sync, to send the outbox when the connection
 * returns, even after this tab is closed. Without either the page's own triggers (the `online` event, retries,
 * the next visit) still deliver it.
 */
export async function registerOutboxSync(): Promise<boolean> {
  const container = globalThis.navigator?.serviceWorker as ServiceWorkerContainer | undefined;
  if (container === undefined) return false;
  try {
    const registration = (await container.getRegistration()) as SyncRegistration | undefined;
    if (registration?.sync === undefined) return false;
    await registration.sync.register(OUTBOX_SYNC_TAG);
    return true;
  } catch {
    return false;
  }
}
