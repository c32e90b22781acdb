import type { Page, Route } from '@playwright/test';

/**
 * Holds the requests it is given until `release()`: a test sees what the page does while they are on their way.
 * `held` lists the path of each request held, in order.
 */
export function requestGate() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: string[] = [];
  /** Holds every request of `page` whose URL `matches`; `onHeld` runs for each as it is held. */
  const hold = (page: Page, matches: (url: URL) => boolean, onHeld?: (route: Route) => unknown) =>
    page.route(matches, async (route) => {
      held.push(new URL(route.request().url()).pathname);
      await onHeld?.(route);
      await released;
      await route.continue();
    });
  return { hold, held, release, released };
}
