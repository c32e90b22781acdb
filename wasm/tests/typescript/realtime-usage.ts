// Compile-time checks of the realtime API (supabase-js's shape) in the generated declarations.
import {
  createClient,
  createRealtimeClient,
  type RealtimeChannel,
  type RealtimeClient,
  type RealtimePostgresChangesPayload,
  type RealtimeSendResult,
  type RealtimeSubscribeStatus,
} from "geocache-client";

interface Row extends Record<string, unknown> { id: number; name: string; message: string; created_at: string }

export async function realtimeUsage(): Promise<void> {
  const client = createClient("http://127.0.0.1:54321", "anon");
  const channel: RealtimeChannel = client
    .channel("logbook", { config: { broadcast: { self: true, ack: true }, presence: { key: "" } } })
    .on<Row>("postgres_changes", { event: "INSERT", schema: "public", table: "geocache_logs" }, (payload) => {
      const row: Partial<Row> = payload.new;
      const kind: "INSERT" | "UPDATE" | "DELETE" = payload.eventType;
      void row.name;
      void kind;
    })
    .on("broadcast", { event: "*" }, (payload) => {
      const event: string = payload.event;
      void event;
    })
    .on("system", {}, (payload) => void payload.message)
    .subscribe((status: RealtimeSubscribeStatus, err) => {
      if (status === "CHANNEL_ERROR" && err) {
        const code: string = err.code;
        void code;
      }
    });
  const sent: RealtimeSendResult = await channel.send({ type: "broadcast", event: "wave", payload: { x: 1 } });
  const left: RealtimeSendResult = await channel.unsubscribe();
  const changed: RealtimePostgresChangesPayload | undefined = undefined;
  void changed;
  void sent;
  void left;
  const channels: RealtimeChannel[] = client.getChannels();
  await client.removeChannel(channels[0]!);
  const all: RealtimeSendResult[] = await client.removeAllChannels();
  void all;
  // @ts-expect-error: only broadcasts are sent
  await channel.send({ type: "presence", event: "track" });
  // @ts-expect-error: presence is not offered
  client.channel("x").on("presence", { event: "sync" }, () => undefined);
  client.dispose();
}

// Realtime on its own (the page's wasm/pkg-live): the same channels, without the logbook client.
export async function standaloneRealtimeUsage(): Promise<void> {
  const realtime: RealtimeClient = createRealtimeClient("http://127.0.0.1:54321", "anon");
  const channel: RealtimeChannel = realtime
    .channel("logbook", { config: { broadcast: { self: true } } })
    .on<Row>("postgres_changes", { event: "INSERT", schema: "public", table: "geocache_logs" }, (payload) => {
      const row: Partial<Row> = payload.new;
      void row.message;
    })
    .subscribe((status: RealtimeSubscribeStatus) => void status);
  const channels: RealtimeChannel[] = realtime.getChannels();
  const left: RealtimeSendResult = await realtime.removeChannel(channel);
  const all: RealtimeSendResult[] = await realtime.removeAllChannels();
  void channels;
  void left;
  void all;
  // The standalone client has no logbook reads.
  const noReads: "listEntries" extends keyof RealtimeClient ? never : true = true;
  void noReads;
  realtime.dispose();
}
