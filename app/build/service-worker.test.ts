// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { sparingOwnerPage } from './service-worker.ts';

/** vite-plugin-pwa's retiring worker (selfDestroying), as version 2 writes it. */
const RETIRING = `
self.addEventListener('install', (e) => {
  self.skipWaiting();
});
self.addEventListener('activate', (e) => {
  self.registration.unregister()
    .then(() => self.clients.matchAll())
    .then((clients) => {
      clients.forEach((client) => {
        if (client instanceof WindowClient)
          client.navigate(client.url);
      });
      return Promise.resolve();
    })
    .then(() => {
      self.caches.keys().then((cacheNames) => {
        Promise.all(
          cacheNames.map((cacheName) => {
            return self.caches.delete(cacheName);
          }),
        );
      })
    });
});
    `;

/** Runs `worker` as a service worker of `scope` that controlled pages at `urls`, and returns the pages it reloaded. */
async function reloadedBy(worker: string, scope: string, urls: readonly string[]): Promise<string[]> {
  const reloaded: string[] = [];
  class WindowClient {
    readonly url: string;
    constructor(url: string) {
      this.url = url;
    }
    navigate(url: string) {
      reloaded.push(url);
      return Promise.resolve(this);
    }
  }
  const listeners = new Map<string, (event: unknown) => void>();
  const self = {
    addEventListener: (type: string, listener: (event: unknown) => void) => listeners.set(type, listener),
    skipWaiting: () => Promise.resolve(),
    registration: { scope, unregister: () => Promise.resolve(true) },
    clients: { matchAll: () => Promise.resolve(urls.map((url) => new WindowClient(new URL(url, scope).href))) },
    caches: { keys: () => Promise.resolve([]), delete: () => Promise.resolve(true) },
  };
  // The worker's own text, run as the browser would, with these as its globals.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const run = new Function('self', 'WindowClient', worker) as (self: unknown, windowClient: unknown) => void;
  run(self, WindowClient);
  listeners.get('activate')?.({});
  await new Promise((resolve) => setTimeout(resolve));
  return reloaded.map((url) => new URL(url).pathname + new URL(url).search);
}

describe("the teaser's retiring worker", () => {
  it("reloads every page it controlled but the owner's, under each name a host serves it by and with any query", async () => {
    const pages = ['/', '/?from=qr', '/index.html', '/owner.html', '/owner.html?x=1', '/owner', '/owner/', '/owner?x=1'];
    expect(await reloadedBy(sparingOwnerPage(RETIRING), 'https://logbook.example/', pages)).toEqual(['/', '/?from=qr', '/index.html']);
  });

  it("spares the owner's page under the site's base path", async () => {
    const pages = ['/logbook/', '/logbook/owner', '/logbook/owner.html?x=1'];
    expect(await reloadedBy(sparingOwnerPage(RETIRING), 'https://example.org/logbook/', pages)).toEqual(['/logbook/']);
  });

  it('refuses a worker that no longer reloads the pages as it expects', () => {
    expect(() => sparingOwnerPage(RETIRING.replace('client.navigate(client.url);', 'client.navigate(client.url)'))).toThrow(
      /no longer holds client\.navigate\(client\.url\);/,
    );
  });
});
