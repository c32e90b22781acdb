import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeEntryList } from '@/testing/fake-entry-list';
import { EntryList } from './entry-list';
import { MESSAGE_LIMIT, NAME_LIMIT } from './user-text';
import './logbook.css';
import type { LogEntry } from '../types';

const localFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const utcFormat = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
});

function entry(id: number, name: string, message: string, created_at = '2024-03-05T23:30:00+00:00'): LogEntry {
  return { id, created_at, name, message };
}

function cards() {
  return screen.queryAllByTestId('log-entry');
}

function parts(card: HTMLElement) {
  const time = card.querySelector('time');
  if (!time) throw new Error('card has no <time>');
  const [name, message] = Array.from(card.querySelectorAll('[dir="auto"]'));
  if (!name || !message) throw new Error('card lacks its name or message');
  return { name, time, message };
}

describe('EntryList', () => {
  it('shows one card per entry, in the order given, with name, local time and message', () => {
    // Deliberately not sorted by time: ordering is the client's job and the list must not redo it.
    const entries = [
      entry(7, 'Ann', 'Found it!', '2024-01-01T09:15:00+00:00'),
      entry(3, 'Bo', 'TFTC', '2025-06-30T23:59:59.123456+00:00'),
      entry(9, 'Cy', 'Logged from the car park', '2023-02-14T12:00:00-05:00'),
    ];
    render(<EntryList entries={fakeEntryList(entries)} />);

    expect(cards()).toHaveLength(3);
    cards().forEach((card, index) => {
      const expected = entries[index];
      if (!expected) throw new Error('more cards than entries');
      const { name, time, message } = parts(card);
      expect(name).toHaveTextContent(expected.name);
      expect(message).toHaveTextContent(expected.message);
      expect(time).toHaveAttribute('datetime', expected.created_at);
      expect(time.textContent).toBe(localFormat.format(new Date(expected.created_at)));
    });
  });

  it('shows the time in the viewer’s zone, not UTC (the test runs in Pacific/Auckland)', () => {
    const createdAt = '2024-03-05T23:30:00+00:00';
    render(<EntryList entries={fakeEntryList([entry(1, 'Ann', 'Hi', createdAt)])} />);
    const time = screen.getByTestId('log-entry').querySelector('time');
    expect(time?.textContent).toBe(localFormat.format(new Date(createdAt)));
    expect(time?.textContent).not.toBe(utcFormat.format(new Date(createdAt)));
    expect(time?.textContent).toMatch(/2024/);
  });

  it('formats with one formatter made in advance, not one per card or render', () => {
    const constructed = vi.spyOn(Intl, 'DateTimeFormat');
    try {
      const { rerender } = render(<EntryList entries={fakeEntryList([entry(1, 'Ann', 'Hi'), entry(2, 'Bo', 'Yo')])} />);
      rerender(<EntryList entries={fakeEntryList([entry(3, 'Cy', 'Hey'), entry(1, 'Ann', 'Hi')])} />);
      expect(cards()).toHaveLength(2);
      expect(constructed).not.toHaveBeenCalled();
    } finally {
      constructed.mockRestore();
    }
  });

  it('shows a timestamp this browser cannot parse as sent instead of breaking the page', () => {
    render(<EntryList entries={fakeEntryList([entry(1, 'Ann', 'Hi', '2024-01-01T12:00:00-03')])} />);
    expect(screen.getByTestId('log-entry').querySelector('time')).toHaveTextContent('2024-01-01T12:00:00-03');
  });

  it('renders an empty list as no cards at all', () => {
    render(<EntryList entries={fakeEntryList([])} />);
    expect(screen.getByRole('list')).toBeEmptyDOMElement();
  });

  describe('hostile text is data, shown verbatim and never as markup', () => {
    const huge = 'x'.repeat(10_000);
    const hostile: [string, string][] = [
      ['HTML with an event handler', '<img src=x onerror=alert(1)>'],
      ['a script tag', '<script>alert("owned")</script>'],
      ['a right-to-left override', '\u202Eevil.exe\u202C and שלום עולם'],
      ['zero-width characters', 'a\u200Bb\u200Cc\u200Dd\uFEFFe'],
      ['emoji and combining marks', '🧭📦 👩‍👩‍👧 e\u0301'],
      ['newlines and runs of spaces', '  line one\n\n    line   three  '],
      ['an HTML entity', '&lt;b&gt;not bold&lt;/b&gt; &amp;'],
    ];

    it.each(hostile)('%s', (_label, text) => {
      const tags = (root: HTMLElement) => Array.from(root.querySelectorAll('*'), (element) => element.tagName);
      const plain = render(<EntryList entries={fakeEntryList([entry(1, 'plain', 'plain')])} />);
      const plainTags = tags(plain.container);
      plain.unmount();

      const { container } = render(<EntryList entries={fakeEntryList([entry(1, text, text)])} />);
      const { name, message } = parts(screen.getByTestId('log-entry'));

      expect(name.textContent).toBe(text);
      expect(message.textContent).toBe(text);
      // Exactly the elements harmless text gets: nothing was parsed out of the input.
      expect(tags(container)).toEqual(plainTags);
      expect(container.querySelectorAll('img, script, b')).toHaveLength(0);
    });

    it('cuts a 10,000-character name and message until asked, then shows them whole, as text', async () => {
      const user = userEvent.setup();
      const text = `${huge}<img src=x onerror=alert(1)>`;
      const { container } = render(<EntryList entries={fakeEntryList([entry(1, text, text)])} />);
      const card = screen.getByTestId('log-entry');
      expect(parts(card).name.textContent).toBe('x'.repeat(NAME_LIMIT));
      expect(parts(card).message.textContent).toBe('x'.repeat(MESSAGE_LIMIT));

      await user.click(within(card).getByRole('button', { name: 'Show the whole name' }));
      await user.click(within(card).getByRole('button', { name: 'Show the whole message' }));
      expect(parts(card).name.textContent).toBe(text);
      expect(parts(card).message.textContent).toBe(text);
      expect(container.querySelectorAll('img, script')).toHaveLength(0);
    });

    it('gives user text its own direction, so right-to-left names and messages render as written', () => {
      render(<EntryList entries={fakeEntryList([entry(1, 'שלום', 'مرحبا بالعالم')])} />);
      const { name, message } = parts(screen.getByTestId('log-entry'));
      expect(name).toHaveAttribute('dir', 'auto');
      expect(message).toHaveAttribute('dir', 'auto');
      expect(within(screen.getByTestId('log-entry')).getByText('مرحبا بالعالم')).toBe(message);
    });

    it('keeps line breaks and wraps very long words (white-space: pre-wrap; overflow-wrap: anywhere)', () => {
      render(<EntryList entries={fakeEntryList([entry(1, huge, 'line one\nline two')])} />);
      const { name, message } = parts(screen.getByTestId('log-entry'));
      for (const element of [name, message]) {
        const style = getComputedStyle(element);
        expect(style.whiteSpace).toBe('pre-wrap');
        expect(style.overflowWrap).toBe('anywhere');
      }
    });
  });
});

describe('EntryList with many entries', () => {
  const CARD_HEIGHT = 100;
  const many = (count: number, first = 0) =>
    Array.from({ length: count }, (_, index) => entry(first + index, `Finder ${first + index}`, `Message ${first + index}`));
  const shownIds = () => cards().map((card) => Number(card.getAttribute('data-index')));

  // jsdom has no layout: give every card a height, as a browser would, so the window holds a few,
  // and a window.scrollTo (the list keeps the visible cards in place when cards above them resize).
  beforeEach(() => {
    vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockImplementation(function (this: HTMLElement) {
      return this instanceof HTMLLIElement ? CARD_HEIGHT : 0;
    });
    vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
    // The virtualiser ignores scroll positions past the document's end (overscroll).
    vi.spyOn(document.documentElement, 'scrollHeight', 'get').mockReturnValue(1e9);
    // The list starts at the top of the document, so its box moves up as the window scrolls down.
    vi.spyOn(HTMLUListElement.prototype, 'getBoundingClientRect').mockImplementation(() =>
      DOMRect.fromRect({ x: 0, y: -window.scrollY, width: 600, height: 0 }),
    );
  });
  afterEach(() => {
    vi.restoreAllMocks();
    Object.defineProperty(window, 'scrollY', { configurable: true, value: 0 });
  });

  it('puts only the cards in and near the window in the document, and keeps the list as tall as all of them', () => {
    const entries = many(100_000);
    const rows = fakeEntryList(entries);
    const readName = vi.spyOn(rows, 'name');
    render(<EntryList entries={rows} />);

    expect(cards().length).toBeGreaterThan(5);
    expect(cards().length).toBeLessThan(40);
    expect(parts(cards()[0] ?? document.body).name).toHaveTextContent('Finder 0');
    // Only the rendered rows were read from the list.
    expect(readName.mock.calls.length).toBeLessThan(200);
    const list = screen.getByRole('list');
    const padding = parseFloat(list.style.paddingTop || '0') + parseFloat(list.style.paddingBottom || '0');
    expect(padding).toBeGreaterThan(99_000 * CARD_HEIGHT);
  });

  it('renders the cards at the scroll position, down to the last entry', () => {
    const entries = many(100_000);
    render(<EntryList entries={fakeEntryList(entries)} />);
    const list = screen.getByRole('list');
    const listHeight = () =>
      parseFloat(list.style.paddingTop || '0') + parseFloat(list.style.paddingBottom || '0') + cards().length * CARD_HEIGHT;
    // To the bottom, twice: the second time past the cards measured on the way.
    for (let step = 0; step < 2; step += 1) {
      act(() => {
        Object.defineProperty(window, 'scrollY', { configurable: true, value: listHeight() - window.innerHeight });
        window.dispatchEvent(new Event('scroll'));
      });
    }
    expect(window.scrollY).toBeGreaterThan(99_000 * CARD_HEIGHT);
    expect(shownIds()).toContain(99_999);
    expect(shownIds()).not.toContain(0);
    const last = cards().find((card) => card.getAttribute('data-index') === '99999');
    expect(parts(last ?? document.body).name).toHaveTextContent('Finder 99999');
  });

  it('after a reload with one new entry, renders only the new card and keeps the others in place', () => {
    const before = many(1000, 1);
    const { rerender } = render(<EntryList entries={fakeEntryList(before)} />);
    const firstCard = cards()[0];
    // `format` is a getter on the prototype: each formatted time reads it once.
    const prototype = Intl.DateTimeFormat.prototype as unknown as { readonly format: unknown };
    const format = vi.spyOn(prototype, 'format', 'get');

    rerender(<EntryList entries={fakeEntryList([entry(0, 'New', 'Just signed'), ...before])} />);

    expect(parts(cards()[0] ?? document.body).name).toHaveTextContent('New');
    // The entry that was first is the same element, now second: moved, not rebuilt.
    expect(cards()[1]).toBe(firstCard);
    // One card's text was rendered again: the new one.
    expect(format).toHaveBeenCalledTimes(1);
  });
});
