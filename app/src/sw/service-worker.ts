/// <reference lib="webworker" />
// The page's service worker (production builds with the logbook open; app/build/service-worker.ts). It keeps the
// page itself (index.html, the hashed scripts and styles, the wasm client, the manifest and icons) so the page
// loads without a network. Caching is Workbox's: the build injects the list of files with their revisions.
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { registerRoute } from 'workbox-routing';
import { isOwnerPageUrl } from './owner-page-url';

declare const self: ServiceWorkerGlobalScope;

// Only the build's own files are answered, by their same-origin URLs. Every other request, the backend's above
// all, is left to the network: the entries the visitor has seen are kept by the page, not here.
precacheAndRoute(self.__WB_MANIFEST);
// A new build's worker removes the caches of Workbox versions it no longer reads.
cleanupOutdatedCaches();
// Navigations within the site get the cached index.html, so a reload works offline.
// The owner's page is not the visitor's: a navigation to it always goes to the network, whatever its query and
// under each name a host may serve it by. (A NavigationRoute's denylist would see the query too.)
registerRoute(
  ({ request, url }) => request.mode === 'navigate' && !isOwnerPageUrl(url.href, self.registration.scope),
  createHandlerBoundToURL('index.html'),
);

// A new build's worker waits until the visitor accepts it ("Reload" in the page, through workbox-window's
// messageSkipWaiting), so a page is never swapped under files it still loads lazily.
self.addEventListener('message', (event: ExtendableMessageEvent) => {
  if ((event.data as { type?: unknown } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});

// ---------------------------------------------------------------------------------------------------------------
// Background work of the logbook itself (such as sending signs kept while offline) is added below this line, by
// importing it from src/features/logbook. Nothing above depends on it.
import { drainLogbookOutbox, OUTBOX_SYNC_TAG } from '@/features/logbook/outbox/background-sync';

// Signs kept on the device while offline are sent when the browser regains a connection, even with no tab open.
// drainLogbookOutbox rejects while signs still wait, so the browser schedules the sync again.
// TypeScript's WebWorker library has no Background Sync types: the event is an ExtendableEvent with its tag.
interface SyncEvent extends ExtendableEvent {
  readonly tag: string;
}

self.addEventListener('sync', (event) => {
  const sync = event as SyncEvent;
  if (sync.tag === OUTBOX_SYNC_TAG) sync.waitUntil(drainLogbookOutbox());
});
