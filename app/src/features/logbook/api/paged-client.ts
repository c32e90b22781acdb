import type { Client, EntryList } from 'geocache-client';
import { getClient } from './client';

/** What `listEntries` takes: a callback for each page, so the page can show entries before the last one arrives. */
export interface ListOptions {
  /**
   * Called after each page with every entry read so far, newest first: a new handle each time, which the
   * caller frees once it no longer shows it. The last call's list equals the one the promise resolves to.
   */
  readonly onPage?: (entriesSoFar: PagedEntryList) => void;
}

/** An `EntryList` that can be shown over an older one while a fresh read is still paging. */
export interface PagedEntryList extends EntryList {
  /**
   * This list, then the entries of `older` that come strictly after this list's last entry (newest first, by
   * created_at then id), de-duplicated by id: a new handle, freed by the caller.
   */
  withOlderFrom(older: PagedEntryList): PagedEntryList;
}

/** The part of the client the logbook's list reads through: every row, in keyset pages, whatever the row cap. */
export interface PagedClient {
  listEntries(options?: ListOptions): Promise<PagedEntryList>;
}

/**
 * The logbook client as the list reads it. The client's paged `listEntries` is typed here as the page relies on
 * it; once the client's own declarations carry it, `Client` satisfies `PagedClient` as is.
 */
export function getPagedClient(): PagedClient {
  const client: Client = getClient();
  return client as unknown as PagedClient;
}
