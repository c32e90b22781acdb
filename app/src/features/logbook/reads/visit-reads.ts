import { whenIdle } from '@/lib/when-idle';
import { isClientLoadFailure } from '../api/client-code';
import type { EntryPages } from '../api/entry-pages';
import { mergeNewer, OVERLAP_MS } from '../device-copy/catch-up';
import type { CaughtUpChanges } from '../device-copy/changes-catch-up';
import { learnRemovals } from '../device-copy/learn-removals';
import { instantMicros, newestFirst } from '../device-copy/newest-first';
import { readRemovals, removedIds, type Removals } from '../device-copy/removals';
import { keepCopy, type DeviceCopy } from '../device-copy/copy-store';
import { plainRows } from '../device-copy/plain-rows';
import { idsOf, withArrivals } from '../live/arrivals';
import { LiveArrivals, type ArrivalListener, type LiveArrivalsOptions, type ReadList } from '../live/live-arrivals';
import type { CopyTimes, EntryList, EntryRows, KeptCopy, KeptEntry, ReadState } from '../types';
import type { FirstRead, VisitPlan } from './first-read';
import { amendedRows } from './amended-rows';
import { ListMemory, type Shown } from './list-memory';

/** What the logbook shows of the visit's reads: one snapshot, replaced whenever any of it changes. */
export interface LogEntries {
  /**
   * The entries read so far, newest first, with those that arrived since on top; until the first page arrives, the
   * entries kept on this device (empty without them).
   */
  readonly entries: EntryRows;
  /** Whether `entries` are the device's copy (no page of this visit has arrived yet). */
  readonly fromDevice: boolean;
  /** When the device's copy was last brought up to date (ms since the epoch), or null without one. */
  readonly updatedAt: number | null;
  readonly read: ReadState;
}

/** Where the reads come from: the client's calls and the device's copy, handed in so tests can drive them. */
export interface ReadSources {
  /** The visit's first read: one started before the logbook rendered, taken over, or a new one. */
  readonly firstRead: () => FirstRead;
  /** A read of every entry. */
  readonly wholeRead: () => EntryPages;
  /** Opens the device's copy, for a reload when no first read has opened it. */
  readonly openCopy: () => Promise<DeviceCopy | null>;
  /** The copy found before the logbook rendered, if any: shown at once. */
  readonly keptBefore: KeptCopy | null | undefined;
  readonly live: LiveArrivalsOptions;
  /**
   * The owner's removals and restores since the cursor given (device-copy/changes-catch-up.ts), read when the visit
   * opens and after each live subscription's catch-up; none without it.
   */
  readonly changes?: (known: Removals) => Promise<CaughtUpChanges>;
  /** The time, ms since the epoch. */
  readonly now?: () => number;
}

/** Everything the reads know; the snapshot is made from it. */
interface ReadsState {
  /** A whole read's list as it stands, and the client lists it reads. */
  readonly shown: Shown | null;
  /** The device's copy with the entries a catch-up read brought, until a whole read replaces it. */
  readonly caughtUp: EntryRows | null;
  /** The device's copy as found, until a page of this visit arrives. */
  readonly kept: EntryRows | null;
  readonly updatedAt: number | null;
  readonly read: ReadState;
  /** The ids this device learned were removed: never shown, whichever read or copy holds them. */
  readonly removed: ReadonlySet<number>;
  /** Entries put back (or imported) since the copy: shown at their place by created_at. */
  readonly restored: readonly KeptEntry[];
}

/** The list before anything is read or found. Its readers are never called: it has no rows. */
const NO_ENTRIES = plainRows([]);

/**
 * The visit's reads, kept outside React (components subscribe with useSyncExternalStore: use-log-entries.ts). It
 * shows the entries kept on this device at once, then reads what the visit needs (first-read.ts): with a copy
 * reconciled within a day, only the entries from a minute before its newest, merged into it by id; otherwise every
 * entry, in pages, each shown as it arrives, and kept as the new copy once the browser is idle (entries removed
 * meanwhile go away). A `reload()` (after a sign) always reads every entry: it shows its fresh pages so far followed
 * by the older part of the list shown before (nothing shown disappears while it runs), and its whole list replaces
 * both at the end. The newest read wins: an older one's pages and result are freed, never shown. A failed page is
 * logged and leaves what is shown. The entries that arrive while the page is open are shown over it all
 * (LiveArrivals). It owns every client list it is handed, and frees each in one place (ListMemory).
 */
export class VisitReads {
  private readonly sources: ReadSources;
  private readonly now: () => number;
  private readonly memory = new ListMemory();
  private readonly live: LiveArrivals;
  private readonly subscribers = new Set<() => void>();
  /** The `Shown` each snapshot was made from, for `rendered`. */
  private readonly shownIn = new WeakMap<LogEntries, Shown | null>();
  private state: ReadsState;
  private list: ReadList = { rows: NO_ENTRIES, ids: new Set(), settled: false };
  private view!: LogEntries;
  private opened = false;
  /** Counts the reads started: only the latest one's pages are shown. */
  private latest = 0;
  /** The device's copy, once a read has opened it; the reads keep what they read there. */
  private copy: Promise<DeviceCopy | null> | null = null;
  /** The changes' cursor, recorded once the copy holds the entries they added back. */
  private cursorToKeep: number | null = null;
  /**
   * The last change this visit applied. The device's cursor lags it until the copy holds the entries put back, and
   * a read from there would bring them again.
   */
  private changesCursor: number | null = null;
  /** A read of the changes in flight; `again` when another was asked for meanwhile (it starts from where this one ends). */
  private changesRead: { again: boolean } | null = null;
  private lastAmended: { base: EntryRows; removed: ReadonlySet<number>; restored: readonly KeptEntry[]; rows: EntryRows } | null = null;

  constructor(sources: ReadSources) {
    this.sources = sources;
    this.now = sources.now ?? Date.now;
    this.live = new LiveArrivals(sources.live, () => this.refresh(), {
      removed: this.removedLive,
      restored: this.restoredLive,
      caughtUp: () => this.readChanges(),
    });
    const found = sources.keptBefore;
    this.state = {
      shown: null,
      caughtUp: null,
      kept: found ? plainRows(found.entries) : null,
      updatedAt: found?.updatedAt ?? null,
      read: 'loading',
      removed: removedIds(),
      restored: [],
    };
    this.refresh();
  }

  readonly subscribe = (onChange: () => void): (() => void) => {
    this.subscribers.add(onChange);
    return () => this.subscribers.delete(onChange);
  };

  readonly snapshot = (): LogEntries => this.view;

  /** Tells `listener` of each entry shown for the first time after a read (live, or by a catch-up read). */
  readonly onArrived = (listener: ArrivalListener): (() => void) => this.live.onArrived(listener);

  /** Starts the visit's first read, and listening once it has settled. */
  open(): void {
    this.opened = true;
    this.live.open();
    this.readFirst();
    this.readChanges();
  }

  /**
   * Stops: every read in flight frees its lists as they arrive, and the snapshot no longer changes (the lists it
   * reads go with it: ListMemory). A later `open` reads afresh: React may unmount and mount the same logbook in
   * development.
   */
  close(): void {
    this.opened = false;
    this.latest += 1;
    this.live.close();
  }

  /** Reads every entry again (after a sign); the newest read wins. */
  readonly reload = (): void => this.reloadThen(undefined);

  /**
   * Shows this page's own sign as the server stored it (`stored`, when its answer held the row) on top at once, then
   * reads every entry again, and calls `shown` once the read's first page is shown (or the read ends, fails or is
   * overtaken): the sign holds back what waits for signs in flight until that read no longer needs the link.
   */
  readonly reloadAfterSign = (shown: () => void, stored?: KeptEntry): void => {
    if (stored !== undefined && this.opened) this.live.own(stored);
    this.reloadThen(shown);
  };

  private reloadThen(shown: (() => void) | undefined): void {
    if (!this.opened) return shown?.();
    this.copy ??= this.sources.openCopy();
    this.readPages(this.sources.wholeRead(), ++this.latest, false, shown);
  }

  /** What React has just committed to the screen: the lists no snapshot on screen, or about to be, reads are freed. */
  rendered(view: LogEntries): void {
    this.memory.committed(this.shownIn.get(view) ?? null);
  }

  /** An entry removed while the page is open: dropped now, and never painted on this device again. */
  private readonly removedLive = (id: number): void => {
    learnRemovals([id], []);
    if (this.state.removed.has(id)) return;
    this.set({ removed: new Set([...this.state.removed, id]), restored: this.state.restored.filter((entry) => entry.id !== id) });
  };

  /**
   * An insert heard live that is the owner putting an entry back: one this page saw removed, or one older than the
   * newest shown by more than a sign's commit can lag (OVERLAP_MS). It is shown at its place, not as an arrival.
   */
  private readonly restoredLive = (entry: KeptEntry): boolean => {
    const rows = this.list.rows;
    const older = rows.length > 0 && instantMicros(entry.created_at) < instantMicros(rows.createdAt(0)) - OVERLAP_MS * 1000;
    if (!this.state.removed.has(entry.id) && !older) return false;
    learnRemovals([], [entry.id]);
    this.restore([], [entry]);
    return true;
  };

  private restore(removed: readonly number[], added: readonly KeptEntry[]): void {
    const back = new Set(added.map((entry) => entry.id));
    const ids = new Set([...this.state.removed, ...removed].filter((id) => !back.has(id)));
    const restored = newestFirst([...added, ...this.state.restored]).filter((entry) => !ids.has(entry.id));
    this.set({ removed: ids, restored });
  }

  /**
   * Learns the removals and restores since this visit (or, at its start, this device) last read them: beside the
   * visit's first read, and after each live subscription's catch-up, since the channel does not replay what it
   * missed while down. One read at a time, each from where the last ended. Offline (or any failure) nothing changes:
   * the copy shows as it was, and the next subscription or visit that reads catches up.
   */
  private readChanges(): void {
    const { changes } = this.sources;
    if (changes === undefined) return;
    if (this.changesRead !== null) {
      this.changesRead.again = true;
      return;
    }
    const reading = { again: false };
    this.changesRead = reading;
    const known = readRemovals();
    void changes(this.changesCursor === null ? known : { ...known, cursor: this.changesCursor })
      .then(
        (caughtUp) => {
          if (this.opened) this.applyChanges(caughtUp);
        },
        (error: unknown) => console.warn('Could not catch up on removed entries:', error),
      )
      .finally(() => {
        this.changesRead = null;
        if (reading.again && this.opened) this.readChanges();
      });
  }

  private applyChanges({ removed, added, cursor }: CaughtUpChanges): void {
    this.changesCursor = cursor;
    // While entries put back wait for the copy to hold them, so does every later cursor.
    const waiting = added.length > 0 || this.cursorToKeep !== null;
    learnRemovals(removed, added.map((entry) => entry.id), waiting ? undefined : cursor);
    this.restore(removed, added);
    if (!waiting) return;
    // Recorded once the copy holds them: their created_at may be older than any later catch-up read reaches.
    this.cursorToKeep = cursor;
    if (added.length > 0 && this.state.read === 'loaded') {
      this.keepOnDevice(this.shownEntries(), { updatedAt: this.now(), reconciledAt: this.now() });
    }
  }

  /** The list the reads show now (arrivals aside), as plain entries. */
  private shownEntries(): KeptEntry[] {
    const rows = this.amended(this.state.shown?.rows ?? this.state.caughtUp ?? this.state.kept ?? NO_ENTRIES);
    const ids = rows.ids();
    return Array.from(ids, (id, index) => ({ id, created_at: rows.createdAt(index), name: rows.name(index), message: rows.message(index) }));
  }

  /** `rows` as amended by what the device learned; the same object for the same inputs, so refreshes stay cheap. */
  private amended(rows: EntryRows): EntryRows {
    const { removed, restored } = this.state;
    const last = this.lastAmended;
    if (last !== null && last.base === rows && last.removed === removed && last.restored === restored) return last.rows;
    const amended = amendedRows(rows, removed, restored);
    this.lastAmended = { base: rows, removed, restored, rows: amended };
    return amended;
  }

  private readFirst(): void {
    const read = ++this.latest;
    const visit = this.sources.firstRead();
    this.copy = visit.copy;
    const start = ({ kept, plan }: VisitPlan) => {
      if (kept !== null && this.opened) {
        // Shown before the first render may be only the copy's newest entries (device-copy/early-read.ts).
        const shown = this.state.kept;
        this.set({
          kept: shown !== null && shown.length >= kept.entries.length ? shown : plainRows(kept.entries),
          updatedAt: this.state.updatedAt ?? kept.updatedAt,
        });
      }
      if (plan.kind === 'newer' && kept !== null) this.readNewer(visit.pages, kept, read);
      else this.readPages(visit.pages, read, true);
    };
    if (visit.settled !== undefined) start(visit.settled);
    else void visit.plan.then(start);
  }

  /** Shows a read of every entry page by page; its whole list replaces what was shown and is kept on the device. */
  private readPages(pages: EntryPages, read: number, first: boolean, shown?: () => void): void {
    const current = () => this.opened && read === this.latest;
    let pending = shown;
    const tellShown = () => {
      const once = pending;
      pending = undefined;
      once?.();
    };
    // What a reload reads over: the list shown (or about to be) when it started, kept until the reload ends.
    const previous = this.state.shown?.rows;
    // A reload over the device's copy caught up (plain rows, not a client list to merge pages into) shows it
    // until the whole list has arrived, so the list never drops back to one page; the pages are freed then.
    const overCopy = !first && previous === undefined && this.state.caughtUp !== null;
    const passed: EntryList[] = [];
    const releasePassed = (kept?: EntryList) => {
      for (const list of passed) if (list !== kept) this.memory.release(list);
    };
    pages.subscribe((soFar) => {
      if (!current()) {
        tellShown();
        return this.memory.release(soFar);
      }
      if (overCopy) return void passed.push(soFar);
      if (previous === undefined) this.show({ rows: soFar, lists: [soFar] });
      else {
        const merged = soFar.withOlderFrom(previous);
        // `soFar` stays listed: the client may resolve to this very handle.
        this.show({ rows: merged, lists: [merged, soFar, previous] });
      }
      tellShown();
    });
    pages.done.then(
      (all) => {
        if (!current()) {
          tellShown();
          releasePassed();
          return this.memory.release(all);
        }
        this.show({ rows: all, lists: [all] }, 'loaded');
        tellShown();
        releasePassed(all);
        const now = this.now();
        // Copying a long logbook out of wasm and into IndexedDB takes a while: the whole list is painted first.
        whenIdle(() => {
          if (current()) this.keepOnDevice(all.toArray(), { updatedAt: now, reconciledAt: now });
        });
      },
      (error: unknown) => {
        tellShown();
        releasePassed();
        this.failed(error, current());
      },
    );
  }

  /** Only the entries newer than the copy: shown merged into it once they have all arrived (usually one page). */
  private readNewer(pages: EntryPages, copied: KeptCopy, read: number): void {
    pages.done.then(
      (newer) => {
        const merged = mergeNewer(copied.entries, newer.toArray());
        this.memory.release(newer);
        if (!this.opened || read !== this.latest) return;
        this.set({ caughtUp: plainRows(merged), read: 'loaded' });
        this.keepOnDevice(merged, { updatedAt: this.now(), reconciledAt: copied.reconciledAt });
      },
      (error: unknown) => this.failed(error, this.opened && read === this.latest),
    );
  }

  private show(next: Shown, read?: ReadState): void {
    this.memory.show(next);
    this.set(read === undefined ? { shown: next } : { shown: next, read });
  }

  private failed(error: unknown, current: boolean): void {
    // The client's code not loading is the page's failure, reported once by App.tsx in place of the logbook.
    if (!isClientLoadFailure(error)) console.error('Error fetching logs:', error);
    if (current && this.state.read === 'loading') this.set({ read: 'failed' });
  }

  private keepOnDevice(entries: readonly KeptEntry[], times: CopyTimes): void {
    if (this.copy === null) return;
    const { restored } = this.state;
    const cursor = this.cursorToKeep;
    // The entries put back are kept too (removed ones never are: copy-store.ts).
    const all = restored.length === 0 ? entries : newestFirst([...entries, ...restored]);
    void keepCopy(this.copy, all, times).then((kept) => {
      if (kept && cursor !== null) {
        learnRemovals([], [], cursor);
        if (this.cursorToKeep === cursor) this.cursorToKeep = null;
      }
      if (kept && this.opened) this.set({ updatedAt: times.updatedAt });
    });
  }

  private set(change: Partial<ReadsState>): void {
    const next = { ...this.state, ...change };
    const keys = Object.keys(change) as (keyof ReadsState)[];
    if (keys.every((key) => next[key] === this.state[key])) return;
    this.state = next;
    this.refresh();
  }

  /** Makes the snapshot anew (the list, then the arrivals over it) and tells every subscriber. */
  private refresh(): void {
    const { shown, caughtUp, kept, updatedAt, read, removed } = this.state;
    const rows = this.amended(shown?.rows ?? caughtUp ?? kept ?? NO_ENTRIES);
    const ids = rows === this.list.rows ? this.list.ids : idsOf(rows);
    this.list = { rows, ids, settled: read !== 'loading' };
    this.live.over(this.list);
    const arrived = removed.size === 0 ? this.live.entries : this.live.entries.filter((entry) => !removed.has(entry.id));
    this.view = {
      entries: withArrivals(arrived, rows, ids),
      fromDevice: shown === null && caughtUp === null && kept !== null,
      updatedAt,
      read,
    };
    this.shownIn.set(this.view, shown);
    for (const subscriber of this.subscribers) subscriber();
  }
}
