import type { IndexHtmlTransformContext } from 'vite';

/** The owner's page, a second page of the site (src/features/owner): built with every build, in the site's root. */
export const OWNER_PAGE = 'owner.html';

/**
 * Whether a page transform is for the owner's page: the visitor page's transforms (teaser, inline first paint,
 * prerendered logbook, preloads, manifest link) leave it as it is. Its Content-Security-Policy is written as for
 * the visitor's page (production-page.ts).
 */
export function isOwnerPage(context: Pick<IndexHtmlTransformContext, 'path'> | undefined): boolean {
  return context?.path === `/${OWNER_PAGE}`;
}
