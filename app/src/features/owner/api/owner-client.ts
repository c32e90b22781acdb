import { createClient, type Client } from 'geocache-owner';
import { env } from '@/config/env';

export type { Client };

let client: Client | undefined;

/**
 * The owner page's one client (wasm/pkg-owner: REST, auth and a channel), created on first use from the site's
 * configuration. It restores a stored session and keeps it refreshed while the page is visible (the client's own
 * auto-refresh). A configuration the page or the client rejects is thrown to the caller, and not cached.
 */
export function getOwnerClient(): Client {
  if (env.configError) throw env.configError;
  const { supabaseUrl, supabaseKey, requestTimeoutMs } = env;
  client ??= requestTimeoutMs === undefined ? createClient(supabaseUrl, supabaseKey) : createClient(supabaseUrl, supabaseKey, { requestTimeoutMs });
  return client;
}
