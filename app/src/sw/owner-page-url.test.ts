import { describe, expect, it } from 'vitest';
import { isOwnerPageUrl } from './owner-page-url';

const SITE = 'https://logbook.example/';
const UNDER_BASE = 'https://example.org/logbook/';

describe("the owner's page, as the visitor's workers tell it", () => {
  it.each([
    '/owner.html',
    '/owner.html?x=1',
    '/owner.html#removed',
    // Clean URLs, as Cloudflare Pages and Netlify's pretty URLs serve owner.html.
    '/owner',
    '/owner?x=1',
    '/owner/',
    '/OWNER.HTML',
  ])('is %s at the site root', (path) => {
    expect(isOwnerPageUrl(new URL(path, SITE).href, SITE)).toBe(true);
  });

  it.each(['/', '/index.html', '/?owner.html', '/index.html?page=owner.html', '/owners', '/owner.htm', '/owner.html/x', '/x/owner.html', '/assets/owner-1a2b3c4d.js'])(
    'is not %s',
    (path) => {
      expect(isOwnerPageUrl(new URL(path, SITE).href, SITE)).toBe(false);
    },
  );

  it("is decided under the site's base path", () => {
    for (const path of ['/logbook/owner.html', '/logbook/owner.html?x=1', '/logbook/owner', '/logbook/owner/']) {
      expect(isOwnerPageUrl(new URL(path, UNDER_BASE).href, UNDER_BASE), path).toBe(true);
    }
    for (const path of ['/logbook/', '/logbook/index.html', '/owner.html', '/owner']) {
      expect(isOwnerPageUrl(new URL(path, UNDER_BASE).href, UNDER_BASE), path).toBe(false);
    }
  });
});
