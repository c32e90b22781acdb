// What the page shows when it cannot show the logbook (or, rarely, itself): plain text and a way to try again,
// never a blank page. Used by main.tsx before React has loaded (DOM calls) and by App.tsx (logbook-unavailable.tsx).

export const FAILURE_TEXT = {
  /** The logbook's code or its wasm client did not load (network, 404, Content-Security-Policy). */
  logbookNotLoaded: 'The logbook could not be loaded.',
  /** The logbook threw while rendering (e.g. a wasm RuntimeError while reading a row). */
  logbookNotShown: 'The logbook could not be shown.',
  /** React itself did not load (the prerendered teaser never needs it, so this is a teaser built without it). */
  pageNotLoaded: 'The page could not be loaded.',
} as const;

export const TRY_AGAIN = 'Try again';

interface PageFailureOptions {
  readonly title: string | null;
  readonly text: string;
  /** Called on "Try again", which is disabled until the failure is shown again. */
  readonly onRetry: () => void;
}

/** Writes the failure into `root` (replacing what is there) with DOM calls, as text only. */
export function showPageFailure(root: HTMLElement, { title, text, onRetry }: PageFailureOptions): void {
  const main = document.createElement('main');
  main.className = 'page-failure';
  if (title !== null) {
    const heading = document.createElement('h1');
    heading.textContent = title;
    main.append(heading);
  }
  const message = document.createElement('p');
  message.setAttribute('role', 'alert');
  message.textContent = text;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'primary-button';
  button.textContent = TRY_AGAIN;
  button.addEventListener('click', () => {
    button.disabled = true;
    onRetry();
  });
  main.append(message, button);
  root.replaceChildren(main);
}
