export interface AppEnv {
  /** Shows the logbook instead of the teaser. Set only by configuration (`LOGBOOK_OPEN`), never by the page. */
  readonly logbookOpen: boolean;
  readonly supabaseUrl: string;
  readonly supabaseAnonKey: string;
}

type EnvSource = Readonly<Partial<Record<string, unknown>>>;

/**
 * Reads the page's configuration. Missing URL or key are passed on as empty strings on purpose:
 * the client reports them with supabase-js's own messages when the logbook first calls it.
 */
export function readEnv(source: EnvSource): AppEnv {
  return {
    logbookOpen: source.VITE_LOGBOOK_OPEN === 'true',
    supabaseUrl: asString(source.VITE_SUPABASE_URL),
    supabaseAnonKey: asString(source.VITE_SUPABASE_ANON_KEY),
  };
}

function asString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export const env: AppEnv = readEnv(import.meta.env);
