import { whenIdle } from '@/lib/when-idle';
import { plainRows } from '../device-copy/plain-rows';
import type { EntryRows, KeptEntry, LiveEntries } from '../types';
import type { ArrivalKeeper } from './arrival-keeper';
import { addArrivals, notListed } from './arrivals';
import { catchUpSince } from './catch-up-since';

const NONE: readonly KeptEntry[] = [];

/** The list this visit's reads show, which the arrivals are shown over. */
export interface ReadList {
  readonly rows: EntryRows;
  /** Its ids, read out of it once. */
  readonly ids: ReadonlySet<number>;
  /** Whether a read of this visit has settled: a catch-up before then would race the read itself. */
  readonly settled: boolean;
}

export interface LiveArrivalsOptions {
  /** Where inserts come from while the page is open; null listens to nothing. */
  readonly source: LiveEntries | null;
  /** The entries created at or after `since` (every entry without it); rejects with the client's error. */
  readonly readNewer: (since: string | undefined) => Promise<readonly KeptEntry[]>;
  /** Writes the arrivals to the device's copy, a few at a time. */
  readonly keeper: ArrivalKeeper;
}

/**
 * What the reads do with the owner's actions heard live: a removal drops the entry; a restore (an insert of an entry
 * the page saw removed, or an older one) takes its place by `created_at`, and is no arrival (the live region says
 * nothing of either).
 */
export interface LiveAmends {
  readonly removed: (id: number) => void;
  /** True when `entry` was taken as a restore. */
  readonly restored: (entry: KeptEntry) => boolean;
  /**
   * After each subscription's catch-up read: removals are not replayed either, so those made while the socket was
   * down (and the restores) are read from the owner's changes.
   */
  readonly caughtUp: () => void;
}

/** Hears of entries shown for the first time, live or by a catch-up read. */
export type ArrivalListener = (entries: readonly KeptEntry[]) => void;

/**
 * The entries that arrive while the page is open, shown over the reads' list: live, or read after each
 * subscription to fill what the socket missed. Every 'SUBSCRIBED' (the first, and again after each reconnect) is
 * followed by a read of the rows from a minute before the newest shown, once a read has settled: events are not
 * replayed, so whatever was inserted between the first read and the subscription, or while the socket was down,
 * comes from that read (and what was removed, from the read of the owner's changes that follows it: `caughtUp`).
 * Each id shows once, and a read's row wins: a reload after a sign folds the arrivals in.
 */
export class LiveArrivals {
  private readonly options: LiveArrivalsOptions;
  /** Called whenever the arrivals change by themselves (not when `over` drops those a read now holds). */
  private readonly changed: () => void;
  private readonly listeners = new Set<ArrivalListener>();
  private arrived: readonly KeptEntry[] = NONE;
  private list: ReadList = { rows: plainRows([]), ids: new Set(), settled: false };
  private opened = false;
  /** The channel listened to since `open`, and how to stop it (once the browser was idle enough to start). */
  private listening: { stop?: () => void } | null = null;
  /** A subscription not yet followed by its catch-up read (waiting for a read to settle, or the read in flight). */
  private behind = false;
  /** Counts the catch-up reads: only the latest one's rows are shown. */
  private catchUps = 0;

  private readonly amends: LiveAmends | undefined;

  constructor(options: LiveArrivalsOptions, changed: () => void, amends?: LiveAmends) {
    this.options = options;
    this.changed = changed;
    this.amends = amends;
  }

  /** The arrivals the reads' list does not hold, newest first. */
  get entries(): readonly KeptEntry[] {
    return this.arrived;
  }

  /** Tells `listener` of every arrival from now on, until the function returned is called. */
  onArrived(listener: ArrivalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * This page's own sign as the server stored it: shown on top at once, as its live arrival would be (each id once;
   * the reload that follows the sign folds it in). It is not written to the device: the page may not hold every
   * entry signed before it, and a copy whose newest entry is newer than a gap would never read that gap.
   */
  own(entry: KeptEntry): void {
    this.receive([entry], false, false);
  }

  /** Starts hearing arrivals (once a read has settled), and writes them to the device when the page is hidden. */
  open(): void {
    this.opened = true;
    document.addEventListener('visibilitychange', this.keepWhenHidden);
    this.listen();
  }

  /**
   * Stops listening and leaves the channel; arrivals not yet written are dropped (the next visit's catch-up read
   * covers them). A later `open` starts again: React may unmount and mount the same logbook in development.
   */
  close(): void {
    this.opened = false;
    this.catchUps += 1;
    this.listening?.stop?.();
    this.listening = null;
    document.removeEventListener('visibilitychange', this.keepWhenHidden);
    this.options.keeper.dispose();
  }

  /** The reads show `list` now: arrivals it holds are its own from then on. Listening starts once one has settled. */
  over(list: ReadList): void {
    const settledNow = list.settled && !this.list.settled;
    this.list = list;
    const still = notListed(this.arrived, list.ids);
    if (still.length !== this.arrived.length) this.arrived = still;
    if (!settledNow) return;
    this.listen();
    // A subscription that came before a read settled catches up now.
    if (this.behind) this.catchUp();
  }

  /** A page being left may not get another turn of its timers: what arrived is written now. */
  private readonly keepWhenHidden = () => {
    if (document.visibilityState === 'hidden') void this.options.keeper.flush();
  };

  /**
   * Listens once a read of this visit has settled, and stays on: the first entries are painted before the live
   * client (its own wasm) is downloaded, so a first visit waits for none of it. It starts once the browser is idle
   * after that: the list just read is painted before the live client's download, compile and catch-up read compete
   * with it.
   */
  private listen(): void {
    const { source } = this.options;
    if (source === null || !this.opened || !this.list.settled || this.listening !== null) return;
    const listening: { stop?: () => void } = {};
    this.listening = listening;
    whenIdle(() => {
      if (this.listening !== listening) return;
      listening.stop = source.listen({
        onEntry: (entry) => {
          if (this.amends?.restored(entry) !== true) this.receive([entry], false);
        },
        onRemoved: (id) => {
          const still = this.arrived.filter((entry) => entry.id !== id);
          if (still.length !== this.arrived.length) this.arrived = still;
          this.amends?.removed(id);
        },
        onStatus: (status) => {
          if (status === 'SUBSCRIBED') this.catchUp();
        },
      });
    });
  }

  private catchUp(): void {
    this.behind = true;
    if (!this.list.settled) return;
    const request = ++this.catchUps;
    const current = () => this.opened && request === this.catchUps;
    this.options.readNewer(catchUpSince(this.arrived, this.list.rows)).then(
      (rows) => {
        if (!current()) return;
        this.behind = false;
        this.receive(rows, true);
        this.amends?.caughtUp();
      },
      (error: unknown) => {
        // Left behind: the next subscription (the client rejoins after any drop) or a reload reads again. A warning,
        // not an error: the page's console errors stay the spec's two ("Error fetching logs:", "Error inserting log:").
        if (current()) console.warn('Could not catch up on the logbook:', error);
      },
    );
  }

  /**
   * Adds `entries` to the arrivals and tells the listeners of those shown for the first time. They are written to
   * the device only while the page holds every entry since its read (`caughtUp` after the latest subscription), so
   * the copy never gets an entry newer than a gap.
   */
  private receive(entries: readonly KeptEntry[], caughtUp: boolean, keep = true): void {
    const { rows, ids } = this.list;
    const before = new Set(this.arrived.map((entry) => entry.id));
    // Rows the reads already show stay theirs (a catch-up read's minute of overlap is mostly such rows).
    const unread = entries.filter((entry) => !ids.has(entry.id));
    const fresh = unread.filter((entry) => !before.has(entry.id));
    if (fresh.length === 0 && !caughtUp) return;
    this.arrived = addArrivals(this.arrived, unread);
    this.changed();
    if (fresh.length > 0) for (const listener of this.listeners) listener(fresh);
    if (this.behind || !keep) return;
    const unlisted = caughtUp ? notListed(this.arrived, ids) : fresh;
    if (unlisted.length > 0) this.options.keeper.add(unlisted, rows.length > 0 ? rows.createdAt(0) : undefined);
  }
}
