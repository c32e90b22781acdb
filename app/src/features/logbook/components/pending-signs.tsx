import type { OutboxItem } from '../outbox/plain-request';
import { MESSAGE_LIMIT, NAME_LIMIT, UserText } from './user-text';

interface PendingSignsProps {
  readonly items: readonly OutboxItem[];
}

/** The signs kept on this device, newest on top of the list, each marked in words as waiting to be sent. */
export function PendingSigns({ items }: PendingSignsProps) {
  if (items.length === 0) return null;
  return (
    <ul className="pending-list" aria-label="Signs waiting to be sent">
      {[...items].reverse().map((item) => (
        <li key={item.key} className="card entry entry-pending" data-testid="pending-entry">
          <div className="entry-meta">
            <UserText as="span" className="entry-name" text={item.name} limit={NAME_LIMIT} what="name" />
            <span className="entry-pending-label">Waiting to be sent</span>
          </div>
          <UserText as="p" className="entry-message" text={item.message} limit={MESSAGE_LIMIT} what="message" />
        </li>
      ))}
    </ul>
  );
}
