import { LOGBOOK_TITLE } from '@/content/logbook-title';
import { FAILURE_TEXT, TRY_AGAIN } from './page-failure';

interface LogbookUnavailableProps {
  readonly reason: keyof typeof FAILURE_TEXT;
  readonly onRetry: () => void;
  /** True while a retry is under way: the button is disabled. */
  readonly retrying?: boolean;
}

/** In place of the logbook when it could not be loaded or shown: the title, what happened and "Try again". */
export function LogbookUnavailable({ reason, onRetry, retrying = false }: LogbookUnavailableProps) {
  return (
    <main className="page-failure">
      <h1>{LOGBOOK_TITLE}</h1>
      <p role="alert">{FAILURE_TEXT[reason]}</p>
      <button type="button" className="primary-button" onClick={onRetry} disabled={retrying}>
        {TRY_AGAIN}
      </button>
    </main>
  );
}
