// The types the logbook's folders share: the client's entries and lists, the entries kept on the device, how a read
// stands and what a live source tells the page. Types only, so any module may name them without importing another
// module's code (the wasm client's types included: naming them loads nothing).
import type { EntryList, ListOptions, LogChange, LogEntry, NewEntry, PlainRequest, SignOptions } from 'geocache-client';

export type { EntryList, ListOptions, LogChange, LogEntry, NewEntry, PlainRequest, SignOptions };

/**
 * What the list reads: the entries, newest first, one field of one row at a time. An `EntryList`
 * keeps them in wasm memory, so a 100,000-entry logbook costs the page only the rows it shows.
 */
export type EntryRows = Pick<EntryList, 'length' | 'ids' | 'createdAt' | 'name' | 'message'>;

/** An entry as kept on the device: the server's row, its `created_at` text verbatim. */
export interface KeptEntry {
  readonly id: number;
  readonly created_at: string;
  readonly name: string;
  readonly message: string;
}

/** When the device's copy was last brought up to date (ms since the epoch). */
export interface CopyTimes {
  /** By any read, a catch-up read of newer entries included. */
  readonly updatedAt: number;
  /** By a whole read, which also drops the entries the owner removed. */
  readonly reconciledAt: number;
}

/** What a visit finds on the device. */
export interface KeptCopy extends CopyTimes {
  /** Newest first. */
  readonly entries: KeptEntry[];
}

/** The newest part of a copy: `entries` are the newest of the `count` kept (all of them when as many). */
export interface KeptHead extends KeptCopy {
  readonly count: number;
}

/** How the first read of this visit stands. */
export type ReadState = 'loading' | 'loaded' | 'failed';

/** How the live channel stands, in the client's words (supabase-js's channel statuses). */
export type LiveStatus = 'SUBSCRIBED' | 'TIMED_OUT' | 'CLOSED' | 'CHANNEL_ERROR';

/** What a live source tells the page. */
export interface LiveListener {
  /** A row inserted elsewhere (or by this page), as the server stored it. */
  readonly onEntry: (entry: KeptEntry) => void;
  /** A row deleted (the owner removed the entry): only its id is sent. */
  readonly onRemoved?: (id: number) => void;
  /**
   * The channel's status. 'SUBSCRIBED' comes again after every reconnect: events sent while the socket was down
   * are lost, so each one asks for a catch-up read.
   */
  readonly onStatus: (status: LiveStatus) => void;
}

/**
 * Entries inserted into the logbook while the page is open. The page depends on this shape only; the wasm client's
 * realtime channel is one such source (api/live-channel.ts), a test's fake another.
 */
export interface LiveEntries {
  /** Starts listening; the function returned stops it and releases the channel. */
  listen(listener: LiveListener): () => void;
}
