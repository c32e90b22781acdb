import type { LogEntry } from 'geocache-owner';

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
