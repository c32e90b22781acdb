import { useCallback, useEffect, useId, useRef, useState, type RefObject } from 'react';
import type { LogEntry, RemovedEntry } from '../types';
import type { Client } from '../types';
import { errorWords, isRefusal, isSessionLost } from '../session/error-words';
import { EntryItem } from './entry-item';
import { entryTime } from './entry-time';
import { asEntry, placeNewestFirst } from './newest-first';

interface OwnerToolsProps {
  readonly client: Client;
  /** Counts the owner's returns to these tools: each reads the lists afresh. */
  readonly visit: number;
  readonly say: (words: string) => void;
  /** The session is no longer valid: back to sign-in, this place kept. */
  readonly onSessionLost: () => void;
  readonly headingRef: RefObject<HTMLHeadingElement | null>;
}

type Lists =
  | { readonly kind: 'loading' }
  | { readonly kind: 'not-owner' }
  | { readonly kind: 'failed'; readonly words: string }
  | { readonly kind: 'ready'; readonly entries: readonly LogEntry[]; readonly removed: readonly RemovedEntry[] };

/** Every entry, newest first, each with "Remove"; below, the removed entries with "Restore". Only shown at AAL2. */
export function OwnerTools({ client, visit, say, onSessionLost, headingRef }: OwnerToolsProps) {
  const [lists, setLists] = useState<Lists>({ kind: 'loading' });
  const [busy, setBusy] = useState(false);
  const removedHeading = useRef<HTMLHeadingElement>(null);
  const id = useId();

  const failed = useCallback(
    (error: unknown, doing: string) => {
      if (isSessionLost(error)) return onSessionLost();
      if (isRefusal(error)) return setLists({ kind: 'not-owner' });
      say(errorWords(error, doing));
    },
    [onSessionLost, say],
  );

  /** Reads both lists afresh (every page of each). */
  const load = useCallback(async () => {
    // The removed list first: it is the one only an owner at AAL2 may read, so a non-owner is told before any entry.
    const removed = await client.removedEntries();
    const list = await client.listEntries();
    try {
      setLists({ kind: 'ready', entries: list.toArray(), removed });
    } finally {
      list.free();
    }
  }, [client]);

  useEffect(() => {
    let stopped = false;
    load().catch((error: unknown) => {
      if (stopped) return;
      if (isSessionLost(error)) return onSessionLost();
      if (isRefusal(error)) return setLists({ kind: 'not-owner' });
      setLists({ kind: 'failed', words: errorWords(error, 'Reading the entries') });
    });
    return () => {
      stopped = true;
    };
  }, [load, onSessionLost, visit]);

  // Entries signed (or removed elsewhere) while the page is open.
  useEffect(() => {
    if (lists.kind !== 'ready') return;
    const channel = client.channel('owner-geocache_logs', { config: {} });
    channel
      .on('postgres_changes', { event: '*', schema: 'public', table: 'geocache_logs' }, (payload) => {
        if (payload.eventType === 'INSERT') {
          const entry = asEntry(payload.new);
          if (entry === null) return console.error('Error reading a new entry:', payload.new);
          setLists((now) => (now.kind === 'ready' ? { ...now, entries: placeNewestFirst(now.entries, entry) } : now));
        } else if (payload.eventType === 'DELETE') {
          const gone = (payload.old as { id?: unknown }).id;
          setLists((now) => (now.kind === 'ready' ? { ...now, entries: now.entries.filter((entry) => entry.id !== gone) } : now));
        }
      })
      .subscribe();
    return () => {
      void client.removeChannel(channel);
    };
  }, [client, lists.kind]);

  const act = async (doing: string, action: () => Promise<string>, focus: () => void) => {
    setBusy(true);
    try {
      const words = await action();
      await load();
      say(words);
      focus();
    } catch (error) {
      failed(error, doing);
    } finally {
      setBusy(false);
    }
  };

  const remove = (entry: LogEntry) =>
    void act(
      'Removing the entry',
      async () => ((await client.removeEntry(entry.id)) ? `Removed the entry by ${entry.name}.` : `Nothing was removed: the entry by ${entry.name} was not there.`),
      () => headingRef.current?.focus(),
    );

  const restore = (entry: LogEntry) =>
    void act(
      'Restoring the entry',
      async () => {
        (await client.restoreEntry(entry.id)).free();
        return `Restored the entry by ${entry.name}.`;
      },
      () => removedHeading.current?.focus(),
    );

  if (lists.kind === 'not-owner') {
    return (
      <section aria-labelledby={`${id}-entries`}>
        <h2 id={`${id}-entries`} ref={headingRef} tabIndex={-1}>
          Not the owner
        </h2>
        <p>This account is not the logbook&rsquo;s owner, so it cannot see or remove entries here.</p>
      </section>
    );
  }
  return (
    <>
      <section aria-labelledby={`${id}-entries`}>
        <h2 id={`${id}-entries`} ref={headingRef} tabIndex={-1}>
          Entries
        </h2>
        {lists.kind === 'loading' && <p>Reading the entries…</p>}
        {lists.kind === 'failed' && <p>{lists.words}</p>}
        {lists.kind === 'ready' &&
          (lists.entries.length === 0 ? (
            <p>No entries.</p>
          ) : (
            <ol className="owner-list">
              {lists.entries.map((entry) => (
                <EntryItem key={entry.id} entry={entry} action="Remove" busy={busy} onAction={remove} />
              ))}
            </ol>
          ))}
      </section>
      {lists.kind === 'ready' && (
        <section aria-labelledby={`${id}-removed`}>
          <h2 id={`${id}-removed`} ref={removedHeading} tabIndex={-1}>
            Removed entries
          </h2>
          {lists.removed.length === 0 ? (
            <p>No removed entries.</p>
          ) : (
            <ol className="owner-list">
              {lists.removed.map((entry) => (
                <EntryItem key={entry.id} entry={entry} action="Restore" busy={busy} onAction={restore} note={`Removed ${entryTime(entry.removed_at)}`} />
              ))}
            </ol>
          )}
        </section>
      )}
    </>
  );
}
