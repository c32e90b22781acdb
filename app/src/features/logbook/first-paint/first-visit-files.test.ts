import { afterEach, describe, expect, it } from 'vitest';
import { firstVisitFilesOf, preloadFirstVisit } from './first-visit-files';

afterEach(() => {
  document.head.replaceChildren();
});

describe('firstVisitFilesOf', () => {
  it("reads the lists the build wrote on the inline script's element", () => {
    const script = document.createElement('script');
    script.setAttribute('data-first-visit-scripts', '/assets/a.js  /assets/b.js');
    script.setAttribute('data-first-visit-wasm', '/assets/c.wasm');
    expect(firstVisitFilesOf(script)).toEqual({ scripts: ['/assets/a.js', '/assets/b.js'], wasm: ['/assets/c.wasm'] });
  });

  it('finds none without the element or its lists', () => {
    expect(firstVisitFilesOf(null)).toEqual({ scripts: [], wasm: [] });
    expect(firstVisitFilesOf(document.createElement('script'))).toEqual({ scripts: [], wasm: [] });
  });
});

describe('preloadFirstVisit', () => {
  it('asks for the .wasm as the client fetches it, then for each script as a module, in order', () => {
    preloadFirstVisit(document, { scripts: ['/assets/a.js', '/assets/b.js'], wasm: ['/assets/c.wasm'] });
    const links = [...document.head.querySelectorAll('link')].map((link) => [
      link.rel,
      link.getAttribute('as'),
      link.getAttribute('type'),
      link.crossOrigin,
      new URL(link.href).pathname,
    ]);
    expect(links).toEqual([
      ['preload', 'fetch', 'application/wasm', 'anonymous', '/assets/c.wasm'],
      ['modulepreload', null, null, 'anonymous', '/assets/a.js'],
      ['modulepreload', null, null, 'anonymous', '/assets/b.js'],
    ]);
  });
});
