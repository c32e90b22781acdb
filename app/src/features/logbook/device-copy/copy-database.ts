/**
 * Where the copy is kept: one object store of one IndexedDB database (copy-store.ts), its records under these keys.
 *
 * A copy is two records written in one transaction: HEAD_KEY holds the newest entries (enough to paint a screen and
 * to plan the visit's read) with the copy's times and size, REST_KEY the older ones. A repeat visit reads the small
 * head first and paints it; reading a long logbook whole (tens of thousands of entries, one structured clone) takes
 * long enough on a slow phone to hold that first paint back.
 *
 * WHOLE_KEY is the older layout: the whole copy in one record. Pages of that layout read and write only it, and never
 * see the head, so where it is present it is the copy (written after this layout's last write, which removes it);
 * this layout's next write replaces it with a head and a rest. The layouts share the database version: a visit that
 * changes layout keeps its copy, in either direction.
 */
export const COPY_DB = 'geocache-logbook-copy';
export const COPY_STORE = 'copy';
export const WHOLE_KEY = 'state';
export const HEAD_KEY = 'head';
export const REST_KEY = 'rest';

/** Entries in the head: more than a phone's screen and the cards painted before React (PAINTED_CARDS) hold. */
export const HEAD_ENTRIES = 50;
