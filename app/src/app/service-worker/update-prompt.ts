import { announceOnPage } from '@/components/announcements/page-announcement';
import './update-prompt.css';

export const UPDATE_TEXT = 'A new version is available.';
/** The prompt's landmark name: where a screen-reader user finds its "Reload" button. */
export const UPDATE_LABEL = 'New version';

/**
 * Shows, once, a bar saying a new version is available with a "Reload" button that calls `reload`. Built with the
 * DOM, not React: it must work whatever state the page is in. It is a labelled region (a landmark, so its button
 * is easy to find), not a live region of its own: the page keeps one polite live region, which says the text.
 * Until a live region is shown (the prompt can come before the logbook, or in place of it after a failure), the bar
 * is a status itself, the page's only one.
 */
export function showUpdatePrompt(container: HTMLElement, reload: () => void): void {
  if (container.querySelector('.update-prompt')) return;
  const bar = document.createElement('section');
  bar.className = 'update-prompt';
  bar.setAttribute('aria-label', UPDATE_LABEL);
  const text = document.createElement('span');
  text.textContent = UPDATE_TEXT;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'primary-button';
  button.textContent = 'Reload';
  button.addEventListener('click', () => {
    button.disabled = true;
    reload();
  });
  bar.append(text, button);
  if (!announceOnPage(UPDATE_TEXT, () => bar.removeAttribute('role'))) bar.setAttribute('role', 'status');
  container.append(bar);
}
