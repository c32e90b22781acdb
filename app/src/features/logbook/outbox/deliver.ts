import { DEFAULT_REQUEST_TIMEOUT_MS } from '@/config/request-timeout';
import { tellOthers } from './outbox-channel';
import type { OutboxStore } from './outbox-store';
import type { PlainRequest } from './plain-request';
import { noteOf, refusalOf, type RefusedSign, type SignNote } from './sign-news';

/**
 * Answers that say the insert did not reach the database or its answer was lost: the same statuses the client
 * resends a sign after (bad gateway, unavailable, gateway timeout, Cloudflare's 520, 522, 524), written again
 * here because the service worker replays the outbox without the wasm client (deliver.test.ts compares the two
 * lists). The sign stays in the outbox and is sent again later with its key.
 */
export const RESENDABLE_STATUSES: readonly number[] = [502, 503, 504, 520, 522, 524];

/** The Web Lock held while delivering, so one tab (or the service worker) sends the outbox at a time. */
export const OUTBOX_LOCK = 'geocache-logbook-outbox';

/** How long one delivery may take: the page's request timeout (`REQUEST_TIMEOUT_MS`), else the client's default. */
export function deliveryTimeoutMs(configured: number | undefined): number {
  return configured ?? DEFAULT_REQUEST_TIMEOUT_MS;
}

export interface DeliveryReport {
  /** Signs the server stored (or had stored under their key already). */
  readonly delivered: SignNote[];
  /** Signs the server refused, with its answer; each is kept until a page reports it. */
  readonly refused: RefusedSign[];
  /** How many signs are still waiting (the connection or the server is still down, or it did not answer in time). */
  readonly waiting: number;
}

export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** Sends one stored request as the client built it, aborted after `timeoutMs`, headers and body. */
async function send(fetcher: Fetch, request: PlainRequest, timeoutMs: number): Promise<Response> {
  return fetcher(request.url, {
    method: request.method,
    headers: request.headers,
    ...(request.body === null ? {} : { body: request.body }),
    signal: AbortSignal.timeout(timeoutMs),
  });
}

/**
 * Sends every waiting sign, oldest first, with its own Idempotency-Key, so a sign that reached the server before
 * is not stored again. A 2xx removes it (delivered); a 4xx or 500 removes it and keeps the refusal to report (a
 * resend would only be refused again); a network failure, a resendable status or no answer within `timeoutMs`
 * stops the round and leaves it and every later sign waiting. The deadline matters: the round holds the outbox's
 * lock, so one stalled request would hold up every tab and the service worker. A sign removed by someone else
 * meanwhile is not sent.
 */
export async function deliverOutbox(store: OutboxStore, fetcher: Fetch, timeoutMs: number): Promise<DeliveryReport> {
  const delivered: SignNote[] = [];
  const refused: RefusedSign[] = [];
  const items = await store.all();
  for (const [index, item] of items.entries()) {
    const stillWaiting = (await store.all()).some((waiting) => waiting.key === item.key);
    if (!stillWaiting) continue;
    const waiting = { delivered, refused, waiting: items.length - index };
    let response: Response;
    try {
      response = await send(fetcher, item.request, timeoutMs);
    } catch {
      // A network failure, or the deadline (a TimeoutError): the sign may have arrived; its key makes a resend safe.
      return waiting;
    }
    if (RESENDABLE_STATUSES.includes(response.status)) return waiting;
    if (response.ok) {
      await store.remove(item.key);
      delivered.push(noteOf(item));
    } else {
      const sign = { ...noteOf(item), refusal: refusalOf(response.status, await response.text().catch(() => '')) };
      await store.refuse(sign);
      refused.push(sign);
    }
  }
  return { delivered, refused, waiting: 0 };
}

interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}

/**
 * Runs `deliver` under the outbox's Web Lock where the platform has Web Locks (a second tab waits for the first
 * and then finds the outbox already sent), and tells every other tab afterwards what the round delivered and
 * refused, so each clears its fields or says why. A round that changed nothing says nothing: each tab runs one as
 * it opens, and every tab reads the list again when told of a delivery.
 */
export async function withOutboxLock(deliver: () => Promise<DeliveryReport>): Promise<DeliveryReport> {
  const locks = (globalThis.navigator as { locks?: LockManagerLike } | undefined)?.locks;
  const report = locks === undefined ? await deliver() : await locks.request(OUTBOX_LOCK, deliver);
  if (report.delivered.length > 0 || report.refused.length > 0) tellOthers(report);
  return report;
}
