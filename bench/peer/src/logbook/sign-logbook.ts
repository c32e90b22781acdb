import { useCallback, useEffect, useRef, useState } from 'react';
import { supabase } from './supabase';

export interface NewEntry {
  name: string;
  message: string;
}

export async function signLogbook(entry: NewEntry): Promise<void> {
  const { error } = await supabase.from('geocache_logs').insert({ name: entry.name, message: entry.message });
  if (error) throw error;
}

export interface SignLogbookState {
  /** Resolves to true once stored; false when it failed (logged) or another sign is in flight. */
  readonly sign: (entry: NewEntry) => Promise<boolean>;
  readonly pending: boolean;
}

export function useSignLogbook(): SignLogbookState {
  const [pending, setPending] = useState(false);
  const inFlight = useRef(false);
  const mounted = useRef(false);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const sign = useCallback(async (entry: NewEntry) => {
    if (inFlight.current) return false;
    inFlight.current = true;
    setPending(true);
    try {
      await signLogbook(entry);
      return mounted.current;
    } catch (error) {
      console.error('Error inserting log:', error);
      return false;
    } finally {
      inFlight.current = false;
      if (mounted.current) setPending(false);
    }
  }, []);

  return { sign, pending };
}
