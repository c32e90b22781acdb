// @ts-check
// The project's public key as the launchers read it: the publishable key, or the legacy anon key under its older
// name. Node built-ins only: this runs before node_modules exists. The page reads its own VITE_* copy of the same
// rule (app/src/config/supabase-key.ts).

/**
 * The key from whichever of the two variables is set (blank counts as unset), or undefined when neither is; both
 * may be set to the same key. Throws an Error naming both when they hold different keys: nothing says which one
 * was meant.
 * @param {Readonly<Record<string, string | undefined>>} env
 * @param {{ publishable: string, anon: string }} names  e.g. SUPABASE_PUBLISHABLE_KEY and SUPABASE_ANON_KEY
 * @returns {string | undefined}
 */
export function readSupabaseKey(env, { publishable, anon }) {
  const publishableKey = env[publishable]?.trim() || undefined;
  const anonKey = env[anon]?.trim() || undefined;
  if (publishableKey !== undefined && anonKey !== undefined && publishableKey !== anonKey) {
    throw new Error(`${publishable} and ${anon} are both set, to different keys: set only one (${publishable} is the current name).`);
  }
  return publishableKey ?? anonKey;
}
