import { StrictMode } from 'react';
import { createRoot, type RootOptions } from 'react-dom/client';
import { App } from './App';

/**
 * The page's root options. A render error caught by an error boundary is logged by that boundary with the
 * page's own label ("Error showing the logbook:"); React would otherwise log it a second time.
 */
export const rootOptions = { onCaughtError: () => undefined } satisfies RootOptions;

/** Renders the page into `root`, replacing what is there. */
export function renderApp(root: HTMLElement): void {
  createRoot(root, rootOptions).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
