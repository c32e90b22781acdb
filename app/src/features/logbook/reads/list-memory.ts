import type { EntryList } from '../types';

/** What the list shows, and every client list to keep while it is shown or about to be (`rows` included). */
export interface Shown {
  readonly rows: EntryList;
  readonly lists: readonly EntryList[];
}

/**
 * The client lists the reads hold, each given back to wasm (`free`) once nothing on screen, or about to be, reads
 * it. Checked when React commits what is shown (never before: a render still reads the screen's lists) and when a
 * read hands over a list that will not be shown, so a `Shown` replaced before it was ever rendered is freed too.
 * The lists last shown stay on screen until the logbook unmounts: the wasm package is built with `--weak-refs`, so
 * they are freed once nothing holds them. Freeing is idempotent: the client may hand the same handle over twice (its
 * last page and its result), and it is freed once.
 */
export class ListMemory {
  private readonly owned = new Set<EntryList>();
  private readonly freed = new WeakSet<EntryList>();
  private onScreen: Shown | null = null;
  private latest: Shown | null = null;

  /** Records the next `Shown` (right before React is told of it), so its lists are kept until it is replaced. */
  show(next: Shown): void {
    for (const list of next.lists) this.owned.add(list);
    this.latest = next;
  }

  /** What React has just committed to the screen: every list neither it nor the latest `Shown` reads is freed. */
  committed(shown: Shown | null): void {
    this.onScreen = shown;
    this.sweep();
  }

  /** Takes a list a read handed over that will not be shown: freed at once, unless something shown reads it. */
  release(list: EntryList): void {
    if (this.freed.has(list)) return;
    this.owned.add(list);
    this.sweep();
  }

  private sweep(): void {
    for (const list of this.owned) {
      if (this.onScreen?.lists.includes(list) || this.latest?.lists.includes(list)) continue;
      this.owned.delete(list);
      this.freed.add(list);
      list.free();
    }
  }
}
