import { describe, expect, it } from 'vitest';
import { stylesheetsFirst } from './stylesheets-first.ts';

describe('stylesheetsFirst', () => {
  it('moves the head\'s stylesheets, in order, before its first script file or module hint', () => {
    const html = [
      '<head>',
      '    <script id="inline">paint()</script>',
      '    <title>Geocache</title>',
      '    <script type="module" crossorigin src="/assets/index.js"></script>',
      '    <link rel="modulepreload" crossorigin href="/assets/a.js">',
      '    <link rel="stylesheet" crossorigin href="/assets/a.css">',
      '  <link rel="stylesheet" crossorigin href="/assets/b.css">',
      '  </head><body><link rel="stylesheet" href="/late.css"></body>',
    ].join('\n');
    expect(stylesheetsFirst(html)).toBe(
      [
        '<head>',
        '    <script id="inline">paint()</script>',
        '    <title>Geocache</title>',
        '    <link rel="stylesheet" crossorigin href="/assets/a.css">',
        '    <link rel="stylesheet" crossorigin href="/assets/b.css">',
        '    <script type="module" crossorigin src="/assets/index.js"></script>',
        '    <link rel="modulepreload" crossorigin href="/assets/a.js">',
        '  </head><body><link rel="stylesheet" href="/late.css"></body>',
      ].join('\n'),
    );
  });

  it('leaves a page without stylesheets or script files as it is', () => {
    const onlyStyles = '<head>\n    <link rel="stylesheet" href="/a.css">\n</head>';
    expect(stylesheetsFirst(onlyStyles)).toBe(onlyStyles);
    const onlyScripts = '<head>\n    <script type="module" src="/a.js"></script>\n</head>';
    expect(stylesheetsFirst(onlyScripts)).toBe(onlyScripts);
  });
});
