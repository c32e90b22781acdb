import type { Client, RealtimeChannel, RealtimePostgresChangesPayload } from 'geocache-client';
import type { LiveEntries, LiveListener, LiveStatus } from '../live/live-entries';
import { liveEntry } from '../live/live-entries';
import { loadClientCode, loadedClientCode } from './client-code';

const TABLE = 'geocache_logs';

/** The page's one channel and who listens to it. */
interface Joined {
  readonly client: Client;
  readonly channel: RealtimeChannel;
  readonly listeners: Set<LiveListener>;
  /** The channel's latest status, told to a listener that comes later. */
  status: LiveStatus | null;
  /** A removal waiting for the end of this task (see `listen`). */
  leaving: ReturnType<typeof setTimeout> | undefined;
}

let joined: Joined | null = null;

/**
 * The logbook's inserts over the client's realtime channel (postgres_changes INSERT on `public.geocache_logs`). The
 * client reconnects and rejoins by itself, reporting 'SUBSCRIBED' again. A row that is not an entry is logged and
 * skipped. Without a client (the page's configuration: every read reports it) there is nothing to listen to.
 *
 * One channel serves the page: the client hands out the same channel for the same name, which cannot be subscribed
 * twice, and React mounts a component twice in development. So the channel is left only when its last listener
 * has stopped and no other started in the same task, and a listener that comes while it is joined hears its status.
 */
export const liveChannel: LiveEntries = {
  listen(listener) {
    // The client's code is imported lazily (see client-code.ts), so the kept entries paint without it; listening
    // starts once it has loaded. A failed load is the reads' to report.
    let stop: (() => void) | undefined;
    let stopped = false;
    const start = () => {
      if (!stopped) stop = attach(listener);
    };
    if (loadedClientCode() === undefined) loadClientCode().then(start, () => undefined);
    else start();
    return () => {
      stopped = true;
      stop?.();
    };
  },
};

/** Adds `listener` to the page's channel; the returned function removes it. */
function attach(listener: LiveListener): () => void {
  const current = joinedNow();
  if (current === null) return () => undefined;
  clearTimeout(current.leaving);
  current.leaving = undefined;
  current.listeners.add(listener);
  if (current.status !== null) listener.onStatus(current.status);
  return () => {
    current.listeners.delete(listener);
    if (current.listeners.size > 0 || current.leaving !== undefined) return;
    current.leaving = setTimeout(() => leave(current));
  };
}

/** The channel of the page's client, joined now if it is not yet. */
function joinedNow(): Joined | null {
  const code = loadedClientCode();
  if (code === undefined) return null;
  let client: Client;
  try {
    client = code.getClient();
  } catch {
    return null;
  }
  if (joined !== null && joined.client === client) return joined;
  // Typed as always present, but a client built without the `realtime` feature has no channels.
  if (typeof (client as Partial<Client>).channel !== 'function') {
    console.warn('Live entries: this build of the client has no realtime channels; new entries show after a reload.');
    return null;
  }
  return join(client);
}

function join(client: Client): Joined {
  const listeners = new Set<LiveListener>();
  const channel = client.channel(TABLE, { config: {} });
  const current: Joined = { client, channel, listeners, status: null, leaving: undefined };
  joined = current;
  channel
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE }, (payload: RealtimePostgresChangesPayload) => {
      const entry = liveEntry(payload.new);
      if (entry === null) return console.error('Error reading a new entry:', payload.new);
      for (const listener of listeners) listener.onEntry(entry);
    })
    .subscribe((status, error) => {
      if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') console.warn(`Live entries: ${status}`, error);
      current.status = status;
      for (const listener of listeners) listener.onStatus(status);
    });
  return current;
}

function leave(current: Joined): void {
  if (current.listeners.size > 0) return;
  if (joined === current) joined = null;
  current.client.removeChannel(current.channel).catch((error: unknown) => console.error('Error leaving the live channel:', error));
}
