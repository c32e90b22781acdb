import { formatCreatedAt } from './format-created-at';

interface LastUpdatedProps {
  /** When the device's copy was last brought up to date (ms since the epoch), or null without one. */
  readonly at: number | null;
}

/** Says when the entries kept on this device were last brought up to date. */
export function LastUpdated({ at }: LastUpdatedProps) {
  if (at === null) return null;
  const iso = new Date(at).toISOString();
  return (
    <p className="list-note" data-testid="last-updated">
      Last updated <time dateTime={iso}>{formatCreatedAt(iso)}</time>
    </p>
  );
}
