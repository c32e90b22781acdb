import { useCallback, useEffect, useRef, useState } from 'react';
import { registerOutboxSync } from './background-sync';
import { deliverOutbox, OUTBOX_CHANNEL, withOutboxLock, type OutboxDeliveryError } from './deliver';
import { openOutbox, type OutboxStore } from './outbox-store';
import type { OutboxItem, PlainRequest } from './plain-request';

/** Waits between delivery rounds while signs keep waiting: 5 s, doubling, at most a minute. */
const FIRST_RETRY_MS = 5_000;
const LAST_RETRY_MS = 60_000;

export interface OutboxEvents {
  /** Signs this tab delivered. */
  readonly onDelivered: (items: readonly OutboxItem[]) => void;
  /** A sign the server refused on delivery (already removed from the outbox). */
  readonly onRefused: (error: OutboxDeliveryError, item: OutboxItem) => void;
  /** The outbox changed in another tab or the service worker. */
  readonly onChanged: () => void;
}

export interface Outbox {
  /** The signs waiting on this device, oldest first. */
  readonly pending: readonly OutboxItem[];
  /** Keeps a sign until it is delivered; false when the device cannot keep it (no IndexedDB, quota). */
  readonly save: (entry: { name: string; message: string }, request: PlainRequest) => Promise<boolean>;
  /** Forgets a sign that reached the server another way (signed again with its key). */
  readonly forget: (key: string) => Promise<void>;
}

/**
 * The device's outbox: signs that could not reach the server, sent when the connection returns (the `online`
 * event, retries that back off, the next visit, and Background Sync where a service worker offers it), one tab
 * at a time. Each is sent with its own Idempotency-Key, so it is stored once however often it is sent.
 */
export function useOutbox(events: OutboxEvents): Outbox {
  const [pending, setPending] = useState<readonly OutboxItem[]>([]);
  const store = useRef<Promise<OutboxStore | null> | null>(null);
  const latestEvents = useRef(events);
  const retry = useRef<{ timer: ReturnType<typeof setTimeout> | undefined; wait: number }>({ timer: undefined, wait: FIRST_RETRY_MS });
  const mounted = useRef(false);
  // The next round, scheduled from inside a round: a ref, so the callback need not name itself.
  const nextRound = useRef<() => void>(() => undefined);

  useEffect(() => {
    latestEvents.current = events;
  });

  const opened = useCallback(() => (store.current ??= openOutbox()), []);

  const refresh = useCallback(async () => {
    const outbox = await opened();
    if (outbox === null || !mounted.current) return;
    const items = await outbox.all().catch(() => []);
    if (mounted.current) setPending(items);
  }, [opened]);

  const deliver = useCallback(async (): Promise<void> => {
    const outbox = await opened();
    if (outbox === null || !mounted.current) return;
    clearTimeout(retry.current.timer);
    retry.current.timer = undefined;
    const report = await withOutboxLock(() => deliverOutbox(outbox, (url, init) => fetch(url, init))).catch(() => null);
    if (!mounted.current) return;
    await refresh();
    if (report === null) return;
    if (report.delivered.length > 0) latestEvents.current.onDelivered(report.delivered);
    for (const { item, error } of report.refused) latestEvents.current.onRefused(error, item);
    if (report.waiting > 0) {
      const wait = retry.current.wait;
      retry.current.wait = Math.min(wait * 2, LAST_RETRY_MS);
      retry.current.timer = setTimeout(() => nextRound.current(), wait);
    } else {
      retry.current.wait = FIRST_RETRY_MS;
    }
  }, [opened, refresh]);

  useEffect(() => {
    nextRound.current = () => void deliver();
  }, [deliver]);

  useEffect(() => {
    mounted.current = true;
    const timers = retry.current;
    void deliver();
    const online = () => void deliver();
    window.addEventListener('online', online);
    const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(OUTBOX_CHANNEL);
    if (channel !== null) {
      channel.onmessage = () => {
        void refresh();
        latestEvents.current.onChanged();
      };
    }
    return () => {
      mounted.current = false;
      window.removeEventListener('online', online);
      channel?.close();
      clearTimeout(timers.timer);
    };
  }, [deliver, refresh]);

  const save = useCallback(
    async (entry: { name: string; message: string }, request: PlainRequest) => {
      const outbox = await opened();
      const key = request.headers['idempotency-key'];
      if (outbox === null || key === undefined) return false;
      try {
        await outbox.put({ key, name: entry.name, message: entry.message, request, savedAt: Date.now() });
      } catch {
        // A full quota or a closed database: nothing is kept, the sign fails as any other.
        return false;
      }
      await refresh();
      void registerOutboxSync();
      // Online but unreachable: the first retry follows; offline: the `online` event sends it.
      if (retry.current.timer === undefined && navigator.onLine) {
        retry.current.timer = setTimeout(() => void deliver(), retry.current.wait);
      }
      return true;
    },
    [opened, refresh, deliver],
  );

  const forget = useCallback(
    async (key: string) => {
      const outbox = await opened();
      await outbox?.remove(key).catch(() => undefined);
      await refresh();
    },
    [opened, refresh],
  );

  return { pending, save, forget };
}
