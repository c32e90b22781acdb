import type { EntryList, ListOptions, LogEntry } from 'geocache-client';

// The types the logbook's list code shares (the reader, the load hook, the wasm-memory bookkeeping, the list
// component), in a module of their own so that none of those files imports another just for a type.
export type { EntryList, ListOptions, LogEntry };

/**
 * What the list reads: the entries, newest first, one field of one row at a time. An `EntryList`
 * keeps them in wasm memory, so a 100,000-entry logbook costs the page only the rows it shows.
 */
export type EntryRows = Pick<EntryList, 'length' | 'ids' | 'createdAt' | 'name' | 'message'>;

/** What the list shows, and every client list to keep while it is shown or about to be (`rows` included). */
export interface Shown {
  readonly rows: EntryList;
  readonly lists: readonly EntryList[];
}
