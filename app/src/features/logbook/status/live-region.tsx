interface LiveRegionProps {
  /** What to announce; an empty string announces nothing. */
  readonly message: string;
}

/**
 * The page's one polite live region: screen readers read each new message when the reader is idle, and everyone
 * sees it under the form. It is always in the document, so the first message is announced too.
 */
export function LiveRegion({ message }: LiveRegionProps) {
  return (
    <p className="logbook-status" role="status" aria-live="polite" aria-atomic="true" data-testid="logbook-status">
      {message}
    </p>
  );
}
