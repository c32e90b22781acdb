import { useCallback, useEffect, useRef, useState } from 'react';
import { env } from '@/config/env';
import { registerOutboxSync } from './background-sync';
import { deliverOutbox, deliveryTimeoutMs, withOutboxLock } from './deliver';
import { OutboxDeliveryError } from './delivery-error';
import { listenToOthers } from './outbox-channel';
import { openOutbox, type OutboxStore } from './outbox-store';
import type { OutboxItem, PlainRequest } from './plain-request';
import type { RefusedSign, SignNote } from './sign-news';

/** Waits between delivery rounds while signs keep waiting: 5 s, doubling, at most a minute. */
const FIRST_RETRY_MS = 5_000;
const LAST_RETRY_MS = 60_000;

export interface OutboxEvents {
  /** Signs delivered, by this tab, another tab or the service worker. */
  readonly onDelivered: (signs: readonly SignNote[]) => void;
  /**
   * A sign the server refused on delivery (already out of the outbox), by whoever sent it: told once per tab, as
   * the refusal happens, or on the next visit when no tab was open.
   */
  readonly onRefused: (error: OutboxDeliveryError, sign: RefusedSign) => void;
  /** The outbox changed and the news did not say how (a page of another build said so): read the list again. */
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
 * at a time. Each is sent with its own Idempotency-Key, so it is stored once however often it is sent. Whoever
 * sends it, every open tab hears what became of it.
 */
export function useOutbox(events: OutboxEvents): Outbox {
  const [pending, setPending] = useState<readonly OutboxItem[]>([]);
  const store = useRef<Promise<OutboxStore | null> | null>(null);
  const latestEvents = useRef(events);
  const retry = useRef<{ timer: ReturnType<typeof setTimeout> | undefined; wait: number }>({ timer: undefined, wait: FIRST_RETRY_MS });
  const mounted = useRef(false);
  // The next round, scheduled from inside a round: a ref, so the callback need not name itself.
  const nextRound = useRef<() => void>(() => undefined);
  // Refusals this tab has reported: a kept refusal and the news of it may both arrive.
  const reported = useRef(new Set<string>());

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

  /** Says what became of signs, whoever sent them; a refusal is said once, then no visit says it again. */
  const tell = useCallback(
    async (delivered: readonly SignNote[], refused: readonly RefusedSign[]) => {
      if (!mounted.current) return;
      if (delivered.length > 0) latestEvents.current.onDelivered(delivered);
      const fresh = refused.filter((sign) => !reported.current.has(sign.key));
      for (const sign of fresh) {
        reported.current.add(sign.key);
        latestEvents.current.onRefused(new OutboxDeliveryError(sign), sign);
      }
      const outbox = await opened();
      for (const sign of fresh) await outbox?.forgetRefusal(sign.key).catch(() => undefined);
    },
    [opened],
  );

  const deliver = useCallback(async (): Promise<void> => {
    const outbox = await opened();
    if (outbox === null || !mounted.current) return;
    clearTimeout(retry.current.timer);
    retry.current.timer = undefined;
    const timeoutMs = deliveryTimeoutMs(env.requestTimeoutMs);
    const report = await withOutboxLock(() => deliverOutbox(outbox, (url, init) => fetch(url, init), timeoutMs)).catch(() => null);
    if (!mounted.current) return;
    await refresh();
    if (report === null) return;
    await tell(report.delivered, report.refused);
    if (report.waiting > 0) {
      const wait = retry.current.wait;
      retry.current.wait = Math.min(wait * 2, LAST_RETRY_MS);
      retry.current.timer = setTimeout(() => nextRound.current(), wait);
    } else {
      retry.current.wait = FIRST_RETRY_MS;
    }
  }, [opened, refresh, tell]);

  /** Refusals kept from rounds no tab heard (the service worker's, with every tab closed). */
  const tellKept = useCallback(async () => {
    const outbox = await opened();
    const kept = (await outbox?.refusals().catch(() => [])) ?? [];
    if (kept.length > 0) await tell([], kept);
  }, [opened, tell]);

  useEffect(() => {
    nextRound.current = () => void deliver();
  }, [deliver]);

  useEffect(() => {
    mounted.current = true;
    const timers = retry.current;
    void tellKept();
    void deliver();
    const online = () => void deliver();
    window.addEventListener('online', online);
    const stopListening = listenToOthers(
      (news) => {
        void refresh();
        void tell(news.delivered, news.refused);
      },
      () => {
        void refresh();
        latestEvents.current.onChanged();
      },
    );
    return () => {
      mounted.current = false;
      window.removeEventListener('online', online);
      stopListening();
      clearTimeout(timers.timer);
    };
  }, [deliver, refresh, tell, tellKept]);

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
