import type { ManifestOptions } from 'vite-plugin-pwa';
import { LOGBOOK_TITLE } from '../src/content/logbook-title.ts';

/** The page's colour (the "Sign Logbook" button's green): the installed app's title bar and splash screen. */
export const THEME_COLOUR = '#3d6b2f';

/**
 * The web app manifest (manifest.webmanifest, linked from index.html): what a browser needs to offer installing
 * the page. The icons are in public/ (drawn in icon.svg); the maskable one keeps its picture inside the middle
 * 80 % that every mask shape leaves visible.
 */
export const webAppManifest: Partial<ManifestOptions> = {
  name: LOGBOOK_TITLE,
  short_name: 'Geocache',
  description: "A geocache's page.",
  id: '/',
  start_url: '/',
  scope: '/',
  display: 'standalone',
  theme_color: THEME_COLOUR,
  background_color: '#f4f1ea',
  icons: [
    { src: 'icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
    { src: 'icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
    { src: 'icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
  ],
};
