import './update-prompt.css';

export const UPDATE_TEXT = 'A new version is available.';

/**
 * Shows, once, a bar saying a new version is available with a "Reload" button that calls `reload`. Built with the
 * DOM, not React: it must work whatever state the page is in. Announced politely (role="status").
 */
export function showUpdatePrompt(container: HTMLElement, reload: () => void): void {
  if (container.querySelector('.update-prompt')) return;
  const bar = document.createElement('div');
  bar.className = 'update-prompt';
  bar.setAttribute('role', 'status');
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
  container.append(bar);
}
