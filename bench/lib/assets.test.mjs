import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assetKind, assetTotals, compressedSizes } from './assets.mjs';

test('assets are classified by content type, then by extension', () => {
  assert.equal(assetKind('/assets/x.wasm', 'application/wasm'), 'wasm');
  assert.equal(assetKind('/assets/x-1.js', 'text/javascript'), 'js');
  assert.equal(assetKind('/assets/x.css', ''), 'css');
  assert.equal(assetKind('/', 'text/html'), 'html');
  assert.equal(assetKind('/favicon.png', 'image/png'), 'other');
});

test('compressed sizes are real compressions of the body', () => {
  const body = Buffer.from('const entries = [];\n'.repeat(500));
  const sizes = compressedSizes(body, 'js');
  assert.equal(sizes.raw, body.length);
  assert.ok(sizes.gzip < body.length / 20, `gzip ${sizes.gzip}`);
  assert.ok(sizes.brotli < sizes.gzip, `brotli ${sizes.brotli} vs gzip ${sizes.gzip}`);
});

test('the code total counts JS, wasm and CSS but not the HTML', () => {
  const totals = assetTotals([
    { path: '/', kind: 'html', raw: 500, gzip: 300, brotli: 250 },
    { path: '/a.js', kind: 'js', raw: 1000, gzip: 400, brotli: 350 },
    { path: '/a.wasm', kind: 'wasm', raw: 2000, gzip: 900, brotli: 800 },
    { path: '/a.css', kind: 'css', raw: 100, gzip: 80, brotli: 70 },
  ]);
  assert.deepEqual(totals.code, { count: 3, raw: 3100, gzip: 1380, brotli: 1220 });
  assert.deepEqual(totals.all, { count: 4, raw: 3600, gzip: 1680, brotli: 1470 });
  assert.equal(totals.other.count, 0);
});
