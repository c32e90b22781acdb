import type { KeptEntry } from '../types';

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * A PostgREST timestamp (`2024-05-01T10:00:00.123456+00:00`, any offset, `Z`) as microseconds since the epoch,
 * so entries written in the same millisecond still order as the server orders them. NaN when it is not one.
 */
export function instantMicros(text: string): number {
  const match = TIMESTAMP.exec(text);
  if (!match) return Number.NaN;
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.replace(/^(.\d{2})(\d{2})$/, '$1:$2');
  const millis = Date.parse(`${date}T${time}${offset}`);
  return millis * 1000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}

/** The server's order: created_at descending, then id descending. */
export function compareNewestFirst(a: KeptEntry, b: KeptEntry): number {
  return instantMicros(b.created_at) - instantMicros(a.created_at) || b.id - a.id;
}

/** The entries newest first, each id once (the first one given wins). */
export function newestFirst(entries: Iterable<KeptEntry>): KeptEntry[] {
  const byId = new Map<number, KeptEntry>();
  for (const entry of entries) if (!byId.has(entry.id)) byId.set(entry.id, entry);
  // Each timestamp parsed once, not once per comparison: a kept logbook may hold tens of thousands of entries.
  const keyed = [...byId.values()].map((entry) => ({ entry, micros: instantMicros(entry.created_at) }));
  keyed.sort((a, b) => b.micros - a.micros || b.entry.id - a.entry.id);
  return keyed.map(({ entry }) => entry);
}
