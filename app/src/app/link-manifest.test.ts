import { afterEach, describe, expect, it } from 'vitest';
import { linkManifest, MANIFEST_HREF } from './link-manifest';

afterEach(() => {
  document.head.replaceChildren();
});

describe('linkManifest', () => {
  it("links the build's manifest from the head, once", () => {
    expect(MANIFEST_HREF).toBe('/manifest.webmanifest');
    linkManifest(document);
    linkManifest(document);
    const links = document.head.querySelectorAll('link[rel="manifest"]');
    expect(links).toHaveLength(1);
    expect(links[0]?.getAttribute('href')).toBe('/manifest.webmanifest');
  });
});
