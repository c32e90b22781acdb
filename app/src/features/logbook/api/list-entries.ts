import { useCallback, useEffect, useRef, useState } from 'react';
import type { LogEntry } from 'geocache-client';
import { getClient } from './client';

export type { LogEntry };

/** All entries, newest first (the client guarantees the order). Rejects with the client's error. */
export async function fetchLogEntries(): Promise<LogEntry[]> {
  // Awaited inside the async function so a client-creation failure becomes a rejection too.
  return await getClient().listEntries();
}

export interface LogEntriesState {
  /** The last successfully loaded list; empty until a load succeeds. */
  readonly entries: readonly LogEntry[];
  /** Loads the list again; the newest request wins. */
  readonly reload: () => void;
}

/** Loads the entries on mount and on `reload()`. A failed load is logged and leaves the list as it was. */
export function useLogEntries(): LogEntriesState {
  const [entries, setEntries] = useState<readonly LogEntry[]>([]);
  const latestRequest = useRef(0);
  const mounted = useRef(false);

  const reload = useCallback(() => {
    if (!mounted.current) return;
    const request = ++latestRequest.current;
    fetchLogEntries().then(
      (loaded) => {
        // A slower, older response must not overwrite a newer one, nor touch an unmounted component.
        if (mounted.current && request === latestRequest.current) setEntries(loaded);
      },
      (error: unknown) => {
        console.error('Error fetching logs:', error);
      },
    );
  }, []);

  useEffect(() => {
    mounted.current = true;
    reload();
    return () => {
      mounted.current = false;
    };
  }, [reload]);

  return { entries, reload };
}
