import type * as OwnerClientModule from './owner-client';

let loading: Promise<typeof OwnerClientModule> | undefined;

/**
 * Loads the owner's wasm client (its JavaScript, then the .wasm) once. Nothing imports it statically, so the
 * sign-in form paints and takes typing while it downloads; a failed load is forgotten, so the next call tries again.
 */
export function loadOwnerClient(): Promise<typeof OwnerClientModule> {
  loading ??= import('./owner-client').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * Whether this browser keeps a session of the client's (supabase-js's storage key, `sb-<project>-auth-token`): the
 * page then waits for the client to restore it instead of showing the sign-in form first.
 */
export function hasStoredSession(): boolean {
  try {
    for (let index = 0; index < localStorage.length; index += 1) if (/^sb-.+-auth-token$/.test(localStorage.key(index) ?? '')) return true;
  } catch {
    // No localStorage: no session survives a reload either.
  }
  return false;
}
