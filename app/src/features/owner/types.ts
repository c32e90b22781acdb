// The types the owner's folders share, named from the owner's wasm client (naming them loads nothing).
export type { Auth, Client, LogEntry, Mfa, RemovedEntry } from 'geocache-owner';
