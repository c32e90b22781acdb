import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDeviceCopy } from '../device-copy/copy-store';
import { FIRST_CARDS_KEY } from '../device-copy/first-cards';
import { startEarlyPaint } from './early-paint';
import type { KeptEntry } from '../types';

const FILES = { scripts: ['/assets/read.js'], wasm: ['/assets/client.wasm'] };
const ann: KeptEntry = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'First!' };
const bo: KeptEntry = { id: 2, created_at: '2024-05-02T10:00:00+00:00', name: 'Bo', message: '<i>Second</i>' };

/** The served logbook's list as the build prerenders it: empty, under its "Loading entries…" note. */
function servedLogbook(): HTMLElement {
  const section = document.createElement('section');
  section.className = 'logbook-entries';
  const note = document.createElement('p');
  note.className = 'list-note';
  note.textContent = 'Loading entries…';
  const list = document.createElement('ul');
  list.className = 'entry-list';
  section.append(note, list);
  return section;
}

/** The served page's root, holding `children`. */
function servedRoot(...children: HTMLElement[]): HTMLElement {
  const root = document.createElement('div');
  root.id = 'root';
  root.append(...children);
  document.body.replaceChildren(root);
  return root;
}

beforeEach(() => {
  vi.stubGlobal('indexedDB', new IDBFactory());
  localStorage.clear();
  servedRoot(servedLogbook());
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  localStorage.clear();
  document.head.replaceChildren();
  document.body.replaceChildren();
});

const cards = () => [...document.querySelectorAll('[data-testid="log-entry"]')].map((card) => card.querySelector('.entry-message')?.textContent);
const preloads = () => [...document.head.querySelectorAll('link')].map((link) => new URL(link.href).pathname);

describe('startEarlyPaint', () => {
  it('paints the kept entries into the served list and asks for none of the first visit\'s files', async () => {
    await (await openDeviceCopy())?.replace([bo, ann], { updatedAt: 5, reconciledAt: 4 });
    const early = await startEarlyPaint(document, FILES);
    expect(early).toEqual({ kept: { entries: [bo, ann], count: 2, updatedAt: 5, reconciledAt: 4 }, painted: true });
    expect(cards()).toEqual(['<i>Second</i>', 'First!']);
    expect(document.querySelector('.list-note')).toBeNull();
    expect(preloads()).toEqual([]);
  });

  it('waits for the served list while the document is still being parsed', async () => {
    await (await openDeviceCopy())?.replace([ann], { updatedAt: 5, reconciledAt: 4 });
    const root = servedRoot();
    vi.spyOn(document, 'readyState', 'get').mockReturnValue('loading');
    const painting = startEarlyPaint(document, FILES);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The list arrives with the rest of the page, then parsing ends.
    root.append(servedLogbook());
    vi.restoreAllMocks();
    document.dispatchEvent(new Event('readystatechange'));
    expect((await painting).painted).toBe(true);
    expect(cards()).toEqual(['First!']);
  });

  it('paints the entries kept for the first frame once the list is parsed, without waiting for the IndexedDB read', async () => {
    localStorage.setItem(FIRST_CARDS_KEY, JSON.stringify({ entries: [bo, ann] }));
    // An IndexedDB that never answers.
    vi.stubGlobal('indexedDB', { open: () => ({}) });
    const root = servedRoot();
    vi.spyOn(document, 'readyState', 'get').mockReturnValue('loading');
    const painting = startEarlyPaint(document, FILES);
    root.append(servedLogbook());
    vi.restoreAllMocks();
    document.dispatchEvent(new Event('readystatechange'));
    expect(cards()).toEqual(['<i>Second</i>', 'First!']);
    expect(preloads()).toEqual([]);
    let settled = false;
    void painting.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The visit's read still needs the copy's head: the work settles with it.
    expect(settled).toBe(false);
  });

  it('paints the entries kept for the first frame as soon as the list is parsed, before parsing ends', async () => {
    localStorage.setItem(FIRST_CARDS_KEY, JSON.stringify({ entries: [bo, ann] }));
    const root = servedRoot();
    vi.spyOn(document, 'readyState', 'get').mockReturnValue('loading');
    const painting = startEarlyPaint(document, FILES);
    root.append(servedLogbook());
    // The parser's task that brought the list ends: the cards are in it before the browser draws another frame,
    // while the document is still being parsed.
    await Promise.resolve();
    expect(cards()).toEqual(['<i>Second</i>', 'First!']);
    expect(document.querySelector('.list-note')).toBeNull();
    vi.restoreAllMocks();
    expect((await painting).painted).toBe(true);
  });

  it('gives up when parsing ends with no list to paint into, and asks for the first visit\'s files', async () => {
    localStorage.setItem(FIRST_CARDS_KEY, JSON.stringify({ entries: [ann] }));
    servedRoot();
    vi.spyOn(document, 'readyState', 'get').mockReturnValue('loading');
    const painting = startEarlyPaint(document, FILES);
    document.body.append(document.createElement('footer'));
    vi.restoreAllMocks();
    document.dispatchEvent(new Event('readystatechange'));
    expect((await painting).painted).toBe(false);
    expect(preloads()).toEqual(['/assets/client.wasm', '/assets/read.js']);
  });

  it('paints from the IndexedDB read when the entries for the first frame are not entries', async () => {
    localStorage.setItem(FIRST_CARDS_KEY, JSON.stringify({ entries: [{ id: 'x' }] }));
    await (await openDeviceCopy())?.replace([ann], { updatedAt: 5, reconciledAt: 4 });
    // The copy's write kept its own: put the malformed ones back.
    localStorage.setItem(FIRST_CARDS_KEY, JSON.stringify({ entries: [{ id: 'x' }] }));
    expect((await startEarlyPaint(document, FILES)).painted).toBe(true);
    expect(cards()).toEqual(['First!']);
  });

  it("asks for the first visit's files when nothing is kept, and creates no copy", async () => {
    const early = await startEarlyPaint(document, FILES);
    expect(early).toEqual({ kept: null, painted: false });
    expect(cards()).toEqual([]);
    expect(preloads()).toEqual(['/assets/client.wasm', '/assets/read.js']);
    expect((await indexedDB.databases()).map(({ name }) => name)).toEqual([]);
  });

  it("asks for them too when the kept entries cannot be painted (no served list)", async () => {
    await (await openDeviceCopy())?.replace([ann], { updatedAt: 5, reconciledAt: 4 });
    servedRoot();
    const early = await startEarlyPaint(document, FILES);
    expect(early.painted).toBe(false);
    expect(early.kept?.entries).toEqual([ann]);
    expect(preloads()).toEqual(['/assets/client.wasm', '/assets/read.js']);
  });
});
