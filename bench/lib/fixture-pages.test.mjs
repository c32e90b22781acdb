import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageIndexFor } from './fixture-pages.mjs';
import { cursorFilter, pageQuery } from './rest.mjs';

const pages = [
  { last: { id: 900, created_at: '2026-01-02T00:00:00+00:00' } },
  { last: { id: 7, created_at: '2026-01-01T00:00:00.5+00:00' } },
  { last: null }, // the empty page that ends the listing
];

test('each request gets the page after its cursor, as the client and the harness write it', () => {
  assert.equal(pageIndexFor(new URLSearchParams(pageQuery(null, 1000)), pages), 0);
  assert.equal(pageIndexFor(new URLSearchParams(pageQuery(pages[0].last, 1000)), pages), 1);
  assert.equal(pageIndexFor(new URLSearchParams(pageQuery(pages[1].last, 1000)), pages), 2);
  // supabase-js's .or() sends the filter in parentheses as given.
  const supabaseJs = new URLSearchParams({ or: `(created_at.lt."x",and(created_at.eq."x",id.lt.900))` });
  assert.equal(pageIndexFor(supabaseJs, pages), 1);
});

test('a cursor no recorded page ends with gets no page', () => {
  assert.equal(pageIndexFor(new URLSearchParams({ or: '(created_at.lt."x",and(created_at.eq."x",id.lt.5))' }), pages), null);
  assert.equal(pageIndexFor(new URLSearchParams({ or: '(id.gt.1)' }), pages), null);
  assert.equal(pageIndexFor(new URLSearchParams(), []), null);
});

test('the keyset filter is the one the client sends: quoted timestamp, escaped quotes and backslashes', () => {
  assert.equal(
    cursorFilter({ id: 42, created_at: '2024-05-01T10:00:00+00:00' }),
    '(created_at.lt."2024-05-01T10:00:00+00:00",and(created_at.eq."2024-05-01T10:00:00+00:00",id.lt.42))',
  );
  assert.equal(cursorFilter({ id: 1, created_at: 'a"b\\c' }), '(created_at.lt."a\\"b\\\\c",and(created_at.eq."a\\"b\\\\c",id.lt.1))');
  assert.equal(pageQuery(null, 1000), 'select=*&order=created_at.desc%2Cid.desc&limit=1000');
});
