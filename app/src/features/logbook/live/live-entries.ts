import type { KeptEntry } from '../device-copy/newest-first';

/** How the live channel stands, in the client's words (supabase-js's channel statuses). */
export type LiveStatus = 'SUBSCRIBED' | 'TIMED_OUT' | 'CLOSED' | 'CHANNEL_ERROR';

/** What a live source tells the page. */
export interface LiveListener {
  /** A row inserted elsewhere (or by this page), as the server stored it. */
  readonly onEntry: (entry: KeptEntry) => void;
  /**
   * The channel's status. 'SUBSCRIBED' comes again after every reconnect: events sent while the socket was down
   * are lost, so each one asks for a catch-up read.
   */
  readonly onStatus: (status: LiveStatus) => void;
}

/**
 * Entries inserted into the logbook while the page is open. The page depends on this shape only; the wasm client's
 * realtime channel is one such source (api/live-channel.ts), a test's fake another.
 */
export interface LiveEntries {
  /** Starts listening; the function returned stops it and releases the channel. */
  listen(listener: LiveListener): () => void;
}

/**
 * The inserted row of a postgres_changes payload (`payload.new`) as an entry, or null when it is not one (a
 * misconfigured server, a column renamed): such a row is skipped rather than shown half-read.
 */
export function liveEntry(row: unknown): KeptEntry | null {
  if (typeof row !== 'object' || row === null) return null;
  const { id, created_at, name, message } = row as Record<string, unknown>;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) return null;
  if (typeof created_at !== 'string' || typeof name !== 'string' || typeof message !== 'string') return null;
  return { id, created_at, name, message };
}
