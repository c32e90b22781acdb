import { useCallback, useEffect, useRef, useState } from 'react';
import { LogEntriesSchema, type LogEntry } from './schema';
import { supabase } from './supabase';

/** All entries, newest first (the server orders them), validated with zod. */
export async function fetchLogEntries(): Promise<LogEntry[]> {
  const { data, error } = await supabase
    .from('geocache_logs')
    .select('*')
    .order('created_at', { ascending: false });
  if (error) throw error;
  return LogEntriesSchema.parse(data);
}

export interface LogEntriesState {
  readonly entries: readonly LogEntry[];
  readonly reload: () => void;
}

/** Loads the entries on mount and on `reload()`; the newest request wins; failures are logged. */
export function useLogEntries(): LogEntriesState {
  const [entries, setEntries] = useState<readonly LogEntry[]>([]);
  const latestRequest = useRef(0);
  const mounted = useRef(false);

  const reload = useCallback(() => {
    if (!mounted.current) return;
    const request = ++latestRequest.current;
    fetchLogEntries().then(
      (loaded) => {
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
