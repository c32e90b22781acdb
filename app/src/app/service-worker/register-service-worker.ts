import { registerSW } from 'virtual:pwa-register';
import { showUpdatePrompt } from './update-prompt';

/**
 * Registers the production build's service worker (src/sw/service-worker.ts), which keeps the page for offline
 * visits. A new build's worker installs in the background and waits: the page then offers "Reload", and reloads
 * once the new worker has taken over. A visitor who ignores it gets the new build on the next visit after every
 * tab of the page is closed (the browser activates the waiting worker then).
 */
export function registerServiceWorker(): void {
  const update = registerSW({
    immediate: true,
    onNeedRefresh: () => showUpdatePrompt(document.body, () => void update(true)),
    onRegisterError: (error: unknown) => console.error('Error registering the service worker:', error),
  });
}
