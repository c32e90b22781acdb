import type { LogEntry } from './schema';

const localTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function formatCreatedAt(createdAt: string): string {
  const instant = new Date(createdAt);
  return Number.isNaN(instant.getTime()) ? createdAt : localTime.format(instant);
}

/** One card per entry, plain list rendering. */
export function EntryList({ entries }: { readonly entries: readonly LogEntry[] }) {
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
