// @ts-check
// The hostile-text corpus (tests/fixtures/hostile-texts.json) through supabase-js: every text is inserted exactly as
// written (no form in between, so CRLF stays CRLF) and read back equal; U+0000 is refused with PostgREST's 22P05 and
// nothing is stored. tests/e2e/hostile-texts.spec.ts signs the same corpus through the page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostileTexts } from '../fixtures/corpora.mjs';
import { TABLE, startBackend } from './support.mjs';

const corpus = hostileTexts();

test('the corpus has every kind of hostile text the page must store as given', () => {
  assert.ok(corpus.length >= 20, `${corpus.length} entries`);
  const all = corpus.map((entry) => entry.name + entry.message).join('');
  for (const needle of ['<script>', 'onerror=', '<svg', 'javascript:', '"\'>', '{{', '${', '\u202E', '\u2066', '\u200B', '\u200D', '\uFEFF', '\u0301', '👩\u200D👩', '🇩🇪', '𠮷', '\r\n', '\t', '\u0000']) {
    assert.ok(all.includes(needle), `no entry holds ${JSON.stringify(needle)}`);
  }
  assert.ok(corpus.some((entry) => entry.generated && Buffer.byteLength(entry.message) >= 1024 * 1024), 'no generated 1 MiB message');
  assert.ok(corpus.some((entry) => entry.name.startsWith(' ') && entry.name.endsWith(' ')), 'no name with leading and trailing spaces');
});

test('every stored hostile text is read back exactly as it was inserted', async (t) => {
  const { anon, service } = await startBackend(t);
  for (const entry of corpus.filter((candidate) => 'stored' in candidate.outcome)) {
    const inserted = await anon.from(TABLE).insert({ name: entry.name, message: entry.message }).select('id, name, message');
    assert.equal(inserted.error, null, `${entry.label}: ${JSON.stringify(inserted.error)}`);
    assert.equal(inserted.status, 201, entry.label);
    const [row] = /** @type {{ id: number, name: string, message: string }[]} */ (inserted.data);
    assert.ok(row !== undefined, `${entry.label}: no row returned`);
    // What insert returned, and a fresh read by id, both hold exactly the text (compared as strings, then as UTF-8).
    const read = await service.from(TABLE).select('name, message').eq('id', row.id).single();
    assert.equal(read.error, null, `${entry.label}: ${JSON.stringify(read.error)}`);
    for (const [what, got] of /** @type {const} */ ([['insert', row], ['select', read.data]])) {
      assert.ok(got.name === entry.name, `${entry.label}: ${what} changed the name`);
      assert.ok(got.message === entry.message, `${entry.label}: ${what} changed the message (${got.message.length} vs ${entry.message.length} UTF-16 units)`);
      assert.deepEqual(Buffer.from(got.message, 'utf8'), Buffer.from(entry.message, 'utf8'), `${entry.label}: ${what} bytes`);
    }
  }
  const { count } = await service.from(TABLE).select('*', { count: 'exact', head: true });
  assert.equal(count, corpus.filter((entry) => 'stored' in entry.outcome).length);
});

test('a text holding U+0000 is refused with 22P05 and nothing is stored', async (t) => {
  const { anon, service } = await startBackend(t);
  const refused = corpus.filter((entry) => 'refused' in entry.outcome);
  assert.ok(refused.length > 0, 'the corpus has no refused entry');
  for (const entry of refused) {
    if (!('refused' in entry.outcome)) continue;
    const result = await anon.from(TABLE).insert({ name: entry.name, message: entry.message }).select();
    assert.equal(result.status, entry.outcome.refused.status, entry.label);
    assert.equal(result.error?.code, entry.outcome.refused.code, `${entry.label}: ${JSON.stringify(result.error)}`);
    assert.equal(result.data, null, entry.label);
  }
  const { data, error } = await service.from(TABLE).select('*');
  assert.equal(error, null);
  assert.deepEqual(data, []);
});
