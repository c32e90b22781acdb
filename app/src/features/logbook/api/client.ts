import { createClient, type Client } from 'geocache-client';
import { env } from '@/config/env';

let client: Client | undefined;

/**
 * The one logbook client, created on first use from the page configuration. A creation failure
 * (the client's ConfigError, e.g. "supabaseUrl is required.", or the page's own for a request timeout
 * that is not a positive whole number) is thrown to the caller and not cached, so it reaches the same
 * error path as a failed call.
 */
export function getClient(): Client {
  if (env.configError) throw env.configError;
  client ??= createConfiguredClient();
  return client;
}

function createConfiguredClient(): Client {
  const { supabaseUrl, supabaseKey, requestTimeoutMs } = env;
  // Unset: no options at all, so the client's own default (30 s) applies.
  if (requestTimeoutMs === undefined) return createClient(supabaseUrl, supabaseKey);
  return createClient(supabaseUrl, supabaseKey, { requestTimeoutMs });
}
