import { memo } from 'react';
import { formatCreatedAt } from './format-created-at';
import { MESSAGE_LIMIT, NAME_LIMIT, UserText } from './user-text';

export interface EntryContentProps {
  readonly name: string;
  readonly createdAt: string;
  readonly message: string;
}

/** A card's content; skipped on re-render when its entry's text is unchanged. */
export const EntryContent = memo(function EntryContent({ name, createdAt, message }: EntryContentProps) {
  return (
    <>
      <div className="entry-meta">
        <UserText as="span" className="entry-name" text={name} limit={NAME_LIMIT} what="name" />
        <time className="entry-time" dateTime={createdAt}>
          {formatCreatedAt(createdAt)}
        </time>
      </div>
      <UserText as="p" className="entry-message" text={message} limit={MESSAGE_LIMIT} what="message" />
    </>
  );
});
