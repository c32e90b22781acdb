import { describe, expect, it } from 'vitest';
import { afterCharsetMeta } from './after-charset-meta.ts';

describe('afterCharsetMeta', () => {
  it('writes the element right after <meta charset>, before everything the page names after it', () => {
    const html = '<head>\n    <meta charset="UTF-8" />\n    <link rel="stylesheet" href="/a.css">\n</head>';
    expect(afterCharsetMeta(html, '<script id="x">1</script>', 'the inline script')).toBe(
      '<head>\n    <meta charset="UTF-8" />\n    <script id="x">1</script>\n    <link rel="stylesheet" href="/a.css">\n</head>',
    );
  });

  it('refuses a page without <meta charset>, naming what goes after it', () => {
    expect(() => afterCharsetMeta('<head></head>', '<meta />', 'the Content-Security-Policy')).toThrow(
      'index.html has no <meta charset>; the Content-Security-Policy goes right after it.',
    );
  });
});
