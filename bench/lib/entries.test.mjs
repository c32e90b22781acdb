import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeEntries } from './entries.mjs';

const sample = makeEntries(0, 2000);
const length = (/** @type {string} */ text) => Array.from(text).length;
const mean = (/** @type {number[]} */ values) => values.reduce((a, b) => a + b, 0) / values.length;

test('names are about 20 characters and messages about 120', () => {
  const names = sample.map((entry) => length(entry.name));
  const messages = sample.map((entry) => length(entry.message));
  assert.ok(Math.abs(mean(names) - 20) <= 3, `mean name length ${mean(names)}`);
  assert.ok(Math.abs(mean(messages) - 120) <= 6, `mean message length ${mean(messages)}`);
  assert.ok(Math.min(...names) >= 10 && Math.max(...names) <= 26);
  assert.ok(Math.min(...messages) >= 95 && Math.max(...messages) <= 140);
});

test('the text mixes scripts, right-to-left text and emoji, and has no lone surrogates', () => {
  const all = sample.map((entry) => entry.name + entry.message).join('\n');
  for (const script of [/\p{Script=Cyrillic}/u, /\p{Script=Greek}/u, /\p{Script=Han}/u, /\p{Script=Arabic}/u, /\p{Script=Hebrew}/u, /\p{Extended_Pictographic}/u]) {
    assert.match(all, script);
  }
  assert.ok(all.isWellFormed());
});

test('entries are strictly newest first, and the same whichever range generates them', () => {
  const times = sample.map((entry) => Date.parse(entry.created_at.replace(/(\.\d{3})\d+Z$/, '$1Z')));
  for (let i = 1; i < times.length; i += 1) assert.ok(times[i] < times[i - 1], `entry ${i} is not older than ${i - 1}`);
  assert.deepEqual(makeEntries(1500, 1510), sample.slice(1500, 1510));
  assert.equal(new Set(sample.map((entry) => entry.created_at)).size, sample.length);
});
