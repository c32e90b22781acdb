import type { OutboxStore } from './outbox-store';
import type { OutboxItem, PlainRequest } from './plain-request';

/**
 * Answers that say the insert did not reach the database or its answer was lost: the same statuses the client
 * resends a sign after (bad gateway, unavailable, gateway timeout, Cloudflare's 520, 522, 524). The sign stays
 * in the outbox and is sent again later with its key.
 */
export const RESENDABLE_STATUSES: readonly number[] = [502, 503, 504, 520, 522, 524];

/** The Web Lock held while delivering, so one tab (or the service worker) sends the outbox at a time. */
export const OUTBOX_LOCK = 'geocache-logbook-outbox';
/** The BroadcastChannel every tab listens on: a delivery changed the outbox. */
export const OUTBOX_CHANNEL = 'geocache-logbook-outbox';

/** A sign the server refused on delivery (a 4xx or a 500): removed from the outbox, never sent again. */
export class OutboxDeliveryError extends Error {
  override readonly name = 'LogbookError';
  readonly code: string;
  readonly status: number;
  readonly outcome = 'unknown';
  readonly idempotencyKey: string;

  constructor(key: string, status: number, body: string) {
    const server = parseServerError(body);
    super(server.message ?? `HTTP ${status}`);
    this.code = server.code ?? 'http_error';
    this.status = status;
    this.idempotencyKey = key;
  }
}

function parseServerError(body: string): { message?: string; code?: string } {
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value !== 'object' || value === null) return {};
    const { message, code } = value as { message?: unknown; code?: unknown };
    return {
      ...(typeof message === 'string' ? { message } : {}),
      ...(typeof code === 'string' ? { code } : {}),
    };
  } catch {
    return {};
  }
}

export interface DeliveryReport {
  /** Signs the server stored (or had stored under their key already). */
  readonly delivered: OutboxItem[];
  /** Signs the server refused, with its error. */
  readonly refused: { readonly item: OutboxItem; readonly error: OutboxDeliveryError }[];
  /** How many signs are still waiting (the connection or the server is still down). */
  readonly waiting: number;
}

export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** Sends one stored request as the client built it. */
async function send(fetcher: Fetch, request: PlainRequest): Promise<Response> {
  return fetcher(request.url, {
    method: request.method,
    headers: request.headers,
    ...(request.body === null ? {} : { body: request.body }),
  });
}

/**
 * Sends every waiting sign, oldest first, with its own Idempotency-Key, so a sign that reached the server before
 * is not stored again. A 2xx removes it (delivered); a 4xx or 500 removes it (refused: a resend would only be
 * refused again); a network failure or a resendable status stops the round and leaves it and every later sign
 * waiting. A sign removed by someone else meanwhile is not sent.
 */
export async function deliverOutbox(store: OutboxStore, fetcher: Fetch): Promise<DeliveryReport> {
  const delivered: OutboxItem[] = [];
  const refused: DeliveryReport['refused'] = [];
  const items = await store.all();
  for (const [index, item] of items.entries()) {
    const stillWaiting = (await store.all()).some((waiting) => waiting.key === item.key);
    if (!stillWaiting) continue;
    let response: Response;
    try {
      response = await send(fetcher, item.request);
    } catch {
      return { delivered, refused, waiting: items.length - index };
    }
    if (RESENDABLE_STATUSES.includes(response.status)) return { delivered, refused, waiting: items.length - index };
    const body = await response.text().catch(() => '');
    await store.remove(item.key);
    if (response.ok) delivered.push(item);
    else refused.push({ item, error: new OutboxDeliveryError(item.key, response.status, body) });
  }
  return { delivered, refused, waiting: 0 };
}

interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}

/**
 * Runs `deliver` under the outbox's Web Lock where the platform has Web Locks (a second tab waits for the first
 * and then finds the outbox already sent), and tells every tab afterwards when the round delivered or refused a
 * sign. A round that changed nothing says nothing: each tab runs one as it opens, and every tab reads the list
 * again when told.
 */
export async function withOutboxLock(deliver: () => Promise<DeliveryReport>): Promise<DeliveryReport> {
  const locks = (globalThis.navigator as { locks?: LockManagerLike } | undefined)?.locks;
  const report = locks === undefined ? await deliver() : await locks.request(OUTBOX_LOCK, deliver);
  if (report.delivered.length > 0 || report.refused.length > 0) announceChange();
  return report;
}

function announceChange(): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(OUTBOX_CHANNEL);
  channel.postMessage('changed');
  channel.close();
}
