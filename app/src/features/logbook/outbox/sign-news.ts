import type { OutboxItem } from './plain-request';

/** A kept sign as every tab reports it: its key and text, without the stored request. */
export interface SignNote {
  readonly key: string;
  readonly name: string;
  readonly message: string;
}

/** The server's answer to a sign it refused on delivery (a 4xx or a 500). */
export interface Refusal {
  readonly status: number;
  /** PostgREST's code, or `http_error` when the answer named none. */
  readonly code: string;
  /** The server's message, or `HTTP <status>`. */
  readonly message: string;
}

/** A kept sign the server refused: removed from the outbox, never sent again. */
export interface RefusedSign extends SignNote {
  readonly refusal: Refusal;
}

/** What a delivery round did, as one tab (or the service worker) tells every other tab. */
export interface OutboxNews {
  /** The JavaScript context that made the round: it reports its own rounds itself. */
  readonly from: string;
  readonly delivered: readonly SignNote[];
  readonly refused: readonly RefusedSign[];
}

export function noteOf(item: OutboxItem): SignNote {
  return { key: item.key, name: item.name, message: item.message };
}

/** Reads the server's `{code, message}` from a refusal's body, whatever it holds. */
export function refusalOf(status: number, body: string): Refusal {
  let code: unknown;
  let message: unknown;
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value === 'object' && value !== null) ({ code, message } = value as { code?: unknown; message?: unknown });
  } catch {
    // Not JSON (a proxy's page, an empty body): the status says it all.
  }
  return {
    status,
    code: typeof code === 'string' ? code : 'http_error',
    message: typeof message === 'string' ? message : `HTTP ${status}`,
  };
}

const isString = (value: unknown): value is string => typeof value === 'string';

function isNote(value: unknown): value is SignNote {
  if (typeof value !== 'object' || value === null) return false;
  const { key, name, message } = value as Partial<Record<keyof SignNote, unknown>>;
  return isString(key) && isString(name) && isString(message);
}

function isRefused(value: unknown): value is RefusedSign {
  if (!isNote(value)) return false;
  const refusal = (value as { refusal?: unknown }).refusal;
  if (typeof refusal !== 'object' || refusal === null) return false;
  const { status, code, message } = refusal as Partial<Record<keyof Refusal, unknown>>;
  return typeof status === 'number' && isString(code) && isString(message);
}

/**
 * The news in a channel message, or null for anything else (a page of another build may say something else on the
 * channel: it is read as "the outbox changed").
 */
export function readNews(data: unknown): OutboxNews | null {
  if (typeof data !== 'object' || data === null) return null;
  const { from, delivered, refused } = data as Partial<Record<keyof OutboxNews, unknown>>;
  if (!isString(from) || !Array.isArray(delivered) || !Array.isArray(refused)) return null;
  if (!delivered.every(isNote) || !refused.every(isRefused)) return null;
  return { from, delivered, refused };
}
