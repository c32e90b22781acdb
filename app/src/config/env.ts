import { readRequestTimeout, type PageConfigError } from './request-timeout';

export type { PageConfigError };

export interface AppEnv {
  /** Shows the logbook instead of the teaser. Set only by configuration (`LOGBOOK_OPEN`), never by the page. */
  readonly logbookOpen: boolean;
  readonly supabaseUrl: string;
  readonly supabaseAnonKey: string;
  /** How long the client waits for a response, in ms (`REQUEST_TIMEOUT_MS`); undefined: the client's default. */
  readonly requestTimeoutMs: number | undefined;
  /**
   * A setting the page itself rejects (a `REQUEST_TIMEOUT_MS` that is not a positive whole number), or null.
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
  const requestTimeout = readRequestTimeout(source.VITE_REQUEST_TIMEOUT_MS);
  return {
    logbookOpen: source.VITE_LOGBOOK_OPEN === 'true',
    supabaseUrl: asString(source.VITE_SUPABASE_URL),
    supabaseAnonKey: asString(source.VITE_SUPABASE_ANON_KEY),
    requestTimeoutMs: requestTimeout.ok ? requestTimeout.ms : undefined,
    configError: requestTimeout.ok ? null : requestTimeout.error,
  };
}

function asString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export const env: AppEnv = readEnv(import.meta.env);
