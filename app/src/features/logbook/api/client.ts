import { createClient, type Client } from 'geocache-client';
import { env } from '@/config/env';

let client: Client | undefined;

/**
 * The one logbook client, created on first use from the page configuration. A creation failure
 * (the client's ConfigError, e.g. "supabaseUrl is required.") is thrown to the caller and not
 * cached, so it reaches the same error path as a failed call.
 */
export function getClient(): Client {
  client ??= createClient(env.supabaseUrl, env.supabaseAnonKey);
  return client;
}
