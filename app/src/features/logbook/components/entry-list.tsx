import type { LogEntry } from '../api/list-entries';

// Created once: the viewer's locale and time zone, e.g. "Jan 1, 2024, 1:00 PM".
const localTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function formatCreatedAt(createdAt: string): string {
  const instant = new Date(createdAt);
  // The client has validated the timestamp, but a form this browser cannot parse is shown as sent
  // rather than breaking the page.
  return Number.isNaN(instant.getTime()) ? createdAt : localTime.format(instant);
}

interface EntryListProps {
  /** Shown in the order given (the client already sorts newest first). */
  readonly entries: readonly LogEntry[];
}

/** One card per entry. User text is rendered as text only, with its own direction. */
export function EntryList({ entries }: EntryListProps) {
  return (
    <ul className="entry-list">
      {entries.map((entry) => (
        <li key={entry.id} className="card entry" data-testid="log-entry">
          <div className="entry-meta">
            <span className="entry-name user-text" dir="auto">
              {entry.name}
            </span>
            <time className="entry-time" dateTime={entry.created_at}>
              {formatCreatedAt(entry.created_at)}
            </time>
          </div>
          <p className="entry-message user-text" dir="auto">
            {entry.message}
          </p>
        </li>
      ))}
    </ul>
  );
}
