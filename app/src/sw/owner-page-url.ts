/**
 * Whether `url` is the owner's page (owner.html, app/build/owner-page.ts) under the site's base, `scope` (the
 * worker's registration scope): `owner.html`, and `owner` or `owner/` as static hosts that serve clean URLs name it
 * (Cloudflare Pages, Netlify's pretty URLs). Decided on the path alone (a query or a fragment changes nothing), in
 * any letter case: sparing a page only leaves it to the network.
 *
 * The visitor's worker never answers it (service-worker.ts), and the teaser's retiring worker never reloads it: that
 * worker is vite-plugin-pwa's, and gets this function as source text (app/build/service-worker.ts), so it stays
 * self-contained: no imports, no inner functions.
 */
export function isOwnerPageUrl(url: string, scope: string): boolean {
  const base = new URL(scope).pathname;
  const path = new URL(url, scope).pathname;
  return path.startsWith(base) && /^owner(?:\.html|\/)?$/i.test(path.slice(base.length));
}
