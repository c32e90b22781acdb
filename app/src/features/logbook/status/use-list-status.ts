import { useSyncExternalStore } from 'react';
import { STATUS } from './messages';
import type { ReadState } from '../types';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('online', onChange);
  window.addEventListener('offline', onChange);
  return () => {
    window.removeEventListener('online', onChange);
    window.removeEventListener('offline', onChange);
  };
}

/** Whether the browser says it is online (true during server rendering and where it cannot tell). */
export function useOnline(): boolean {
  return useSyncExternalStore(subscribe, () => navigator.onLine, () => true);
}

interface ListStatusInput {
  readonly read: ReadState;
  /** Entries shown. */
  readonly count: number;
  /** Whether the entries shown are the device's copy. */
  readonly fromDevice: boolean;
}

/** What the live region says about the list when no sign has anything to say. */
export function useListStatus({ read, count, fromDevice }: ListStatusInput): string {
  const online = useOnline();
  return listStatus({ read, count, fromDevice, online });
}

export function listStatus({ read, count, fromDevice, online }: ListStatusInput & { readonly online: boolean }): string {
  if ((!online || read === 'failed') && fromDevice && count > 0) return STATUS.offline;
  if (read === 'loading' && count === 0) return STATUS.loading;
  if (read === 'failed' && count === 0) return online ? STATUS.notLoaded : STATUS.offlineNothingKept;
  if (read === 'loaded' && count === 0) return STATUS.noEntries;
  return '';
}
