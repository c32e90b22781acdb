import type { Plugin } from 'vite';
import { isOwnerPage } from './owner-page.ts';

/** The manifest link vite-plugin-pwa writes into index.html (build/service-worker.ts). */
const MANIFEST_LINK = /\s*<link rel="manifest" href="[^"]*"[^>]*>/;

/**
 * `vite build` with the logbook open: takes the web app manifest's link out of index.html, because a browser
 * fetches the manifest and then an icon from it as soon as it reads the link, on a phone's slow network, while the
 * first entries still wait for the wasm client and their page. The entry script links it once those are painted
 * (src/app/link-manifest.ts), so the page stays installable. Fails the build when there is no such link to take
 * out (the PWA plugin changed how it writes it): the manifest would be fetched early again, unnoticed.
 */
export function deferManifestLink({ logbookOpen }: { logbookOpen: boolean }): Plugin {
  return {
    name: 'geocache:defer-manifest-link',
    apply: 'build',
    // After vite-plugin-pwa's own post transform, which writes the link.
    enforce: 'post',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        // The owner's page is no app to install: it links no manifest, whatever the build.
        if (isOwnerPage(context)) return html.replace(MANIFEST_LINK, '');
        if (!logbookOpen) return html;
        if (!MANIFEST_LINK.test(html)) throw new Error('defer-manifest-link: index.html has no <link rel="manifest"> to move into the entry script.');
        return html.replace(MANIFEST_LINK, '');
      },
    },
  };
}
