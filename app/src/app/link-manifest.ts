/** The web app manifest vite-plugin-pwa writes into the build (build/service-worker.ts), under the page's base. */
export const MANIFEST_HREF = `${import.meta.env.BASE_URL}manifest.webmanifest`;

/**
 * Links the web app manifest from `document` (once), which makes the page installable: the open logbook's build
 * leaves the link out of index.html (build/defer-manifest-link.ts) so that the manifest and its icon are fetched
 * only after the first entries are painted.
 */
export function linkManifest(document: Document, href: string = MANIFEST_HREF): void {
  if (document.head.querySelector('link[rel="manifest"]') !== null) return;
  const link = document.createElement('link');
  link.rel = 'manifest';
  link.setAttribute('href', href);
  document.head.append(link);
}
