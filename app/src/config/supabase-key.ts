// No imports from the page: app/build reads the same settings at build time, in Node.
import { pageConfigError, type PageConfigError } from './page-config-error';

/** The key's variables as the page reads them (`SUPABASE_PUBLISHABLE_KEY`, or `SUPABASE_ANON_KEY`, for npm start). */
export const PUBLISHABLE_KEY_VARIABLE = 'VITE_SUPABASE_PUBLISHABLE_KEY';
export const ANON_KEY_VARIABLE = 'VITE_SUPABASE_ANON_KEY';

export type SupabaseKeySetting =
  /** `key` empty: neither is set, for the client to report; `variable`: the one it came from. */
  | { readonly ok: true; readonly key: string; readonly variable: string | undefined }
  | { readonly ok: false; readonly error: PageConfigError };

/**
 * Reads the project's public key: the publishable key (`sb_publishable_...`) or, under its older name, the legacy
 * anon key. Either may be set, or both when they hold the same key; two different keys are an error, since nothing
 * says which one was meant. Unset and empty are the same; the key itself is passed on as given.
 */
export function readSupabaseKey(publishable: unknown, anon: unknown): SupabaseKeySetting {
  const given = [
    [PUBLISHABLE_KEY_VARIABLE, publishable],
    [ANON_KEY_VARIABLE, anon],
  ].filter((pair): pair is [string, string] => typeof pair[1] === 'string' && pair[1] !== '');
  const [first, second] = given;
  if (first === undefined) return { ok: true, key: '', variable: undefined };
  if (second === undefined || second[1] === first[1]) return { ok: true, key: first[1], variable: first[0] };
  const message =
    `${PUBLISHABLE_KEY_VARIABLE} and ${ANON_KEY_VARIABLE} are both set, to different keys: ` +
    `set only one (${PUBLISHABLE_KEY_VARIABLE} is the current name).`;
  return { ok: false, error: pageConfigError('key_conflict', message) };
}
