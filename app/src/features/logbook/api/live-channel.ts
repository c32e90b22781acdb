import type { LiveEntries, LiveStatus } from '../live/live-entries';
import { liveEntry } from '../live/live-entries';
import { getClient } from './client';

/** The part of the client's realtime API the page uses: supabase-js's channel, as the wasm client offers it. */
interface RealtimeChannel {
  on(
    type: 'postgres_changes',
    filter: { event: 'INSERT'; schema: string; table: string },
    callback: (payload: { new: unknown }) => void,
  ): RealtimeChannel;
  subscribe(callback: (status: LiveStatus, error?: unknown) => void): RealtimeChannel;
}

interface RealtimeClient {
  channel(name: string, options: { config: Record<string, never> }): RealtimeChannel;
  removeChannel(channel: RealtimeChannel): Promise<unknown>;
}

const TABLE = 'geocache_logs';

/**
 * The logbook's inserts over the client's realtime channel (postgres_changes on `public.geocache_logs`). The client
 * reconnects and rejoins by itself, reporting 'SUBSCRIBED' again; a row that is not an entry is logged and skipped.
 * Without a client (the page's configuration) or without its realtime API (built without the `realtime` feature)
 * the page shows what its reads bring, as before.
 */
export const liveChannel: LiveEntries = {
  listen(listener) {
    let created: unknown;
    try {
      created = getClient();
    } catch {
      // The page's configuration: every read reports it ("Error fetching logs:"); there is nothing to listen to.
      return () => undefined;
    }
    if (!isRealtimeClient(created)) {
      console.warn('Live entries: this build of the client has no realtime channels; new entries show on a reload.');
      return () => undefined;
    }
    const client = created;
    const channel = client
      .channel(TABLE, { config: {} })
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE }, (payload) => {
        const entry = liveEntry(payload.new);
        if (entry === null) console.error('Error reading a new entry:', payload.new);
        else listener.onEntry(entry);
      })
      .subscribe((status, error) => {
        if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') console.warn(`Live entries: ${status}`, error);
        listener.onStatus(status);
      });
    return () => {
      client.removeChannel(channel).catch((error: unknown) => console.error('Error leaving the live channel:', error));
    };
  },
};

function isRealtimeClient(client: unknown): client is RealtimeClient {
  return typeof client === 'object' && client !== null && 'channel' in client && typeof client.channel === 'function';
}
