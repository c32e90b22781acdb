import type { PageConfigError } from './page-config-error';
import { readRequestTimeout } from './request-timeout';
import { readSupabaseKey } from './supabase-key';

export type { PageConfigError };

export interface AppEnv {
  /** Shows the logbook instead of the teaser. Set only by configuration (`LOGBOOK_OPEN`), never by the page. */
  readonly logbookOpen: boolean;
  readonly supabaseUrl: string;
  /** The publishable key (VITE_SUPABASE_PUBLISHABLE_KEY) or the legacy anon key (VITE_SUPABASE_ANON_KEY). */
  readonly supabaseKey: string;
  /** How long the client waits for a response, in ms (`REQUEST_TIMEOUT_MS`); undefined: the client's default. */
  readonly requestTimeoutMs: number | undefined;
  /**
   * A setting the page itself rejects (two different keys, or a `REQUEST_TIMEOUT_MS` that is not a positive whole
   * number), or null.
   * Like a missing URL or key, it is reported when the logbook first calls the client, not at startup: the
   * teaser does not depend on it.
   */
  readonly configError: PageConfigError | null;
}

type EnvSource = Readonly<Partial<Record<string, unknown>>>;

/**
 * Reads the page's configuration. Missing URL or key are passed on as empty strings on purpose:
 * the client reports them with supabase-js's own messages when the logbook first calls it.
 */
export function readEnv(source: EnvSource): AppEnv {
  const key = readSupabaseKey(source.VITE_SUPABASE_PUBLISHABLE_KEY, source.VITE_SUPABASE_ANON_KEY);
  const requestTimeout = readRequestTimeout(source.VITE_REQUEST_TIMEOUT_MS);
  return {
    logbookOpen: source.VITE_LOGBOOK_OPEN === 'true',
    supabaseUrl: asString(source.VITE_SUPABASE_URL),
    supabaseKey: key.ok ? key.key : '',
    requestTimeoutMs: requestTimeout.ok ? requestTimeout.ms : undefined,
    // The key first: with two keys nothing can be sent, whatever the timeout.
    configError: !key.ok ? key.error : requestTimeout.ok ? null : requestTimeout.error,
  };
}

function asString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export const env: AppEnv = readEnv(import.meta.env);
