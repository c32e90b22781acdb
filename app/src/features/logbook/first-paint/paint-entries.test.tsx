import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { EntryContent } from '../components/entry-content';
import { MESSAGE_LIMIT } from '../components/text-start';
import { fakeEntryList } from '@/testing/fake-entry-list';
import { plainRows } from '../device-copy/plain-rows';
import { PAINTED_CARDS, paintEntries } from './paint-entries';
import type { KeptEntry } from '../types';

/** Kept entries, as the entry script paints them on a repeat visit. */
const paintKeptEntries = (root: HTMLElement, entries: readonly KeptEntry[]) => paintEntries(root, plainRows(entries));

/** The logbook's served HTML as the build prerenders it: an empty list, and the note that entries are loading. */
function servedShell(): HTMLElement {
  const element = (tag: string, className: string, ...children: (Node | string)[]) => {
    const made = document.createElement(tag);
    made.className = className;
    made.append(...children);
    return made;
  };
  const root = document.createElement('div');
  const entries = element('section', 'logbook-entries', element('h2', '', 'Logbook Entries'), element('p', 'list-note', 'Loading entries…'), element('ul', 'entry-list'));
  root.append(element('main', 'logbook', element('h1', '', 'Geocache Signing Page'), entries));
  document.body.append(root);
  return root;
}

const entry = (id: number, message = `Message ${id}`): KeptEntry => ({
  id,
  created_at: `2024-05-01T10:${String(id % 60).padStart(2, '0')}:00+00:00`,
  name: `Name ${id}`,
  message,
});

describe('paintEntries', () => {
  it('fills the served list with the first cards, as the list renders them, and drops the loading note', () => {
    const root = servedShell();
    const entries = Array.from({ length: 50 }, (_, index) => entry(50 - index));
    expect(paintKeptEntries(root, entries)).toBe(true);

    const cards = root.querySelectorAll('.entry-list > li');
    expect(cards).toHaveLength(PAINTED_CARDS);
    expect(root.querySelector('.list-note')).toBeNull();
    for (const [index, card] of [...cards].entries()) {
      const shown = entries[index]!;
      expect(card.className).toBe('card entry');
      expect(card.getAttribute('data-testid')).toBe('log-entry');
      // The same markup as the card's React content, so React's first render changes nothing on the screen.
      const { container, unmount } = render(<EntryContent name={shown.name} createdAt={shown.created_at} message={shown.message} />);
      expect(card.childElementCount).toBe(container.childElementCount);
      for (const [at, child] of [...card.children].entries()) expect(child.isEqualNode(container.children[at] ?? null)).toBe(true);
      unmount();
    }
  });

  it('shows the start of a very long text, marked as cut, as the list does before "Show all"', () => {
    const root = servedShell();
    paintKeptEntries(root, [entry(1, 'x'.repeat(MESSAGE_LIMIT + 10))]);
    const message = root.querySelector('.entry-message');
    expect(message?.textContent).toHaveLength(MESSAGE_LIMIT);
    expect(message?.className).toBe('entry-message user-text is-cut');
    const { container } = render(<EntryContent name="Name 1" createdAt={entry(1).created_at} message={'x'.repeat(MESSAGE_LIMIT + 10)} />);
    expect(container.querySelector('.entry-message')?.className).toBe(message?.className);
  });

  it('changes nothing when the list is not the served empty one, or there is nothing to show', () => {
    const root = servedShell();
    expect(paintKeptEntries(root, [])).toBe(false);
    expect(root.querySelector('.list-note')).not.toBeNull();
    paintKeptEntries(root, [entry(1)]);
    expect(paintKeptEntries(root, [entry(2)])).toBe(false);
    expect(root.querySelectorAll('.entry-list > li')).toHaveLength(1);
    expect(paintKeptEntries(document.createElement('div'), [entry(1)])).toBe(false);
  });

  it("paints a client list's rows (a first visit's first page) with the same cards as kept entries", () => {
    const entries = Array.from({ length: 30 }, (_, index) => entry(30 - index));
    const kept = servedShell();
    paintKeptEntries(kept, entries);
    const read = servedShell();
    expect(paintEntries(read, fakeEntryList(entries))).toBe(true);
    expect(read.querySelectorAll('.entry-list > li')).toHaveLength(PAINTED_CARDS);
    expect(read.querySelector('.entry-list')?.isEqualNode(kept.querySelector('.entry-list'))).toBe(true);
  });

  it('puts texts in as text: markup in a name or message is shown, never parsed', () => {
    const root = servedShell();
    const hostile = { id: 1, created_at: '2024-05-01T10:00:00+00:00', name: '<img src=x onerror=alert(1)>', message: '<b>bold</b>&amp;' };
    paintEntries(root, fakeEntryList([hostile]));
    expect(root.querySelector('img, b')).toBeNull();
    expect(root.querySelector('.entry-name')?.textContent).toBe(hostile.name);
    expect(root.querySelector('.entry-message')?.textContent).toBe(hostile.message);
  });
});
