import { env } from '@/config/env';
import { liveEntry, removedId } from '../live/live-entries';
import { loadClientCode } from './client-code';
import type { RealtimeChannel, RealtimeClient, RealtimePostgresChangesPayload } from './live-code';
import { loadedLiveCode, loadLiveCode } from './live-code';
import { untilNoSignInFlight } from '../sign/signs-in-flight';
import type { LiveEntries, LiveListener, LiveStatus } from '../types';

const TABLE = 'geocache_logs';

/** The page's one channel and who listens to it. */
interface Joined {
  readonly client: RealtimeClient;
  readonly channel: RealtimeChannel;
  readonly listeners: Set<LiveListener>;
  /** The channel's latest status, told to a listener that comes later. */
  status: LiveStatus | null;
  /** A removal waiting for the end of this task (see `listen`). */
  leaving: ReturnType<typeof setTimeout> | undefined;
}

let joined: Joined | null = null;
/** The page's one realtime client, created from its configuration on first use. */
let realtimeClient: RealtimeClient | undefined;

/**
 * The logbook's inserts and removals over a realtime channel (postgres_changes INSERT and DELETE on `public.geocache_logs`) of the live
 * client (live-code.ts), created from the page's configuration and joined with its key. The client reconnects and
 * rejoins by itself, reporting 'SUBSCRIBED' again. A row that is not an entry is logged and skipped. Without a
 * client (the page's configuration: every read reports it) there is nothing to listen to.
 *
 * One channel serves the page: the client hands out the same channel for the same name, which cannot be subscribed
 * twice, and React mounts a component twice in development. So the channel is left only when its last listener
 * has stopped and no other started in the same task, and a listener that comes while it is joined hears its status.
 */
export const liveChannel: LiveEntries = {
  listen(listener) {
    // Listening starts after the logbook client's code (client-code.ts), which the first entries need, has loaded,
    // and then loads the live client's own wasm: a first visit fetches it only after its first entries. A failed
    // load of the logbook client is the reads' to report; one of the live client only means no live entries.
    let stop: (() => void) | undefined;
    let stopped = false;
    const start = () => {
      if (!stopped) stop = attach(listener);
    };
    if (loadedLiveCode() !== undefined) start();
    else {
      // Its wasm waits for no sign to be in flight too: on a weak link it would share the sign's bandwidth.
      loadClientCode().then(
        () =>
          untilNoSignInFlight().then(loadLiveCode).then(start, (error: unknown) => {
            if (!stopped) console.warn('Live entries: the live client could not be loaded; new entries show after a reload.', error);
          }),
        () => undefined,
      );
    }
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

/** The channel of the page's realtime client, joined now if it is not yet. */
function joinedNow(): Joined | null {
  const client = pageRealtimeClient();
  if (client === undefined) return null;
  if (joined !== null && joined.client === client) return joined;
  return join(client);
}

/**
 * The realtime client of the page's configuration, once the live code has loaded. A configuration the page or the
 * client rejects gives none, and is not cached: the reads report it with the same error.
 */
function pageRealtimeClient(): RealtimeClient | undefined {
  const code = loadedLiveCode();
  if (code === undefined || env.configError !== null) return undefined;
  try {
    realtimeClient ??= code.createRealtimeClient(env.supabaseUrl, env.supabaseKey);
  } catch {
    return undefined;
  }
  return realtimeClient;
}

function join(client: RealtimeClient): Joined {
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
    // Realtime sends every subscription that listens for deletes the removed row's id, whatever its role may read.
    .on('postgres_changes', { event: 'DELETE', schema: 'public', table: TABLE }, (payload: RealtimePostgresChangesPayload) => {
      const id = removedId(payload.old);
      if (id === null) return console.error('Error reading a removed entry:', payload.old);
      for (const listener of listeners) listener.onRemoved?.(id);
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
