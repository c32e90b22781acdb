import type { DeviceCopy } from '../device-copy/copy-store';
import { keepNewer } from '../device-copy/keep-newer';
import type { KeptEntry } from '../types';

/**
 * How long arrivals wait to be written to the device together: the copy is one record, so writing it per entry at a
 * busy cache (an entry a second into a 10,000-entry copy) would read and clone the whole logbook every second. The
 * page also writes them when it is hidden (the visitor leaves or switches away).
 */
export const KEEP_DELAY_MS = 10_000;

/**
 * Writes the entries that arrive while the page is open to the device copy, a few seconds' worth at a time, one
 * write after another. An arrival not yet written when the page closes is newer than the copy, so the next visit's
 * catch-up read brings it anyway.
 */
export class ArrivalKeeper {
  private readonly copy: () => Promise<DeviceCopy | null>;
  private readonly delayMs: number;
  private pending: KeptEntry[] = [];
  private readNewest: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<unknown> = Promise.resolve();
  private opened: Promise<DeviceCopy | null> | undefined;

  constructor(copy: () => Promise<DeviceCopy | null>, delayMs: number = KEEP_DELAY_MS) {
    this.copy = copy;
    this.delayMs = delayMs;
  }

  /** Keeps `entries` soon; `readNewest` as for `keepNewer` (the latest one given applies). */
  readonly add = (entries: readonly KeptEntry[], readNewest: string | undefined): void => {
    this.pending.push(...entries);
    this.readNewest = readNewest;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.delayMs);
  };

  /** Writes what is pending now; resolves when every write so far has ended. */
  flush(): Promise<unknown> {
    if (this.pending.length > 0) {
      const entries = this.pending;
      const readNewest = this.readNewest;
      this.pending = [];
      this.opened ??= this.copy();
      const copy = this.opened;
      this.writing = this.writing.then(() => keepNewer(copy, entries, readNewest, Date.now()));
    }
    return this.writing;
  }

  /**
   * Stops the timer and drops what is pending (the next visit's catch-up read covers it). A later `add` starts
   * again: React may unmount and mount the same page in development.
   */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = [];
  }
}
