import type { LogEntry } from '../types';

/** `entries` (newest first) with `entry` at its place by created_at then id, replacing one of the same id. */
export function placeNewestFirst(entries: readonly LogEntry[], entry: LogEntry): LogEntry[] {
  const others = entries.filter((each) => each.id !== entry.id);
  const at = Date.parse(entry.created_at);
  const index = others.findIndex((each) => {
    const time = Date.parse(each.created_at);
    return time < at || (time === at && each.id < entry.id);
  });
  return index === -1 ? [...others, entry] : [...others.slice(0, index), entry, ...others.slice(index)];
}

/** A realtime row (`payload.new`) as an entry, or null when it is not one: such a row is skipped, not shown half-read. */
export function asEntry(row: unknown): LogEntry | null {
  if (typeof row !== 'object' || row === null) return null;
  const { id, created_at, name, message } = row as Record<string, unknown>;
  if (typeof id !== 'number' || typeof created_at !== 'string' || typeof name !== 'string' || typeof message !== 'string') return null;
  return { id, created_at, name, message };
}
