/** Where the copy is kept: one record in one object store of one IndexedDB database (copy-store.ts). */
export const COPY_DB = 'geocache-logbook-copy';
export const COPY_STORE = 'copy';
export const COPY_KEY = 'state';
