import { useId, useState } from 'react';
import type { LogEntry } from '../types';
import { entryTime } from './entry-time';

interface EntryItemProps {
  readonly entry: LogEntry;
  /** "Remove" (asks first) or "Restore". */
  readonly action: 'Remove' | 'Restore';
  readonly busy: boolean;
  readonly onAction: (entry: LogEntry) => void;
  /** Extra line, e.g. when it was removed. */
  readonly note?: string;
}

/** One entry: its name, local time and message as text, and the owner's action on it. */
export function EntryItem({ entry, action, busy, onAction, note }: EntryItemProps) {
  const [confirming, setConfirming] = useState(false);
  const id = useId();
  const time = entryTime(entry.created_at);
  return (
    <li className="owner-entry" data-entry-id={entry.id}>
      <p className="owner-entry-head">
        <strong>{entry.name}</strong> <time dateTime={entry.created_at}>{time}</time>
      </p>
      <p className="owner-entry-message">{entry.message}</p>
      {note !== undefined && <p className="owner-entry-note">{note}</p>}
      {confirming ? (
        <div role="group" aria-labelledby={`${id}-ask`} className="owner-confirm">
          <p id={`${id}-ask`}>
            Remove the entry by “{entry.name}” of {time}?
          </p>
          <button type="button" autoFocus disabled={busy} onClick={() => onAction(entry)}>
            Yes, remove it
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      ) : (
        <button
          type="button"
          disabled={busy}
          aria-label={`${action} the entry by ${entry.name} of ${time}`}
          onClick={() => (action === 'Remove' ? setConfirming(true) : onAction(entry))}
        >
          {action}
        </button>
      )}
    </li>
  );
}
