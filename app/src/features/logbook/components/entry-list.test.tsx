import { render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { LogEntry } from '../api/list-entries';
import { EntryList } from './entry-list';
import './logbook.css';

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
    render(<EntryList entries={entries} />);

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
    render(<EntryList entries={[entry(1, 'Ann', 'Hi', createdAt)]} />);
    const time = screen.getByTestId('log-entry').querySelector('time');
    expect(time?.textContent).toBe(localFormat.format(new Date(createdAt)));
    expect(time?.textContent).not.toBe(utcFormat.format(new Date(createdAt)));
    expect(time?.textContent).toMatch(/2024/);
  });

  it('formats with one formatter made in advance, not one per card or render', () => {
    const constructed = vi.spyOn(Intl, 'DateTimeFormat');
    try {
      const { rerender } = render(<EntryList entries={[entry(1, 'Ann', 'Hi'), entry(2, 'Bo', 'Yo')]} />);
      rerender(<EntryList entries={[entry(3, 'Cy', 'Hey'), entry(1, 'Ann', 'Hi')]} />);
      expect(cards()).toHaveLength(2);
      expect(constructed).not.toHaveBeenCalled();
    } finally {
      constructed.mockRestore();
    }
  });

  it('shows a timestamp this browser cannot parse as sent instead of breaking the page', () => {
    render(<EntryList entries={[entry(1, 'Ann', 'Hi', '2024-01-01T12:00:00-03')]} />);
    expect(screen.getByTestId('log-entry').querySelector('time')).toHaveTextContent('2024-01-01T12:00:00-03');
  });

  it('renders an empty list as no cards at all', () => {
    render(<EntryList entries={[]} />);
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
      ['10,000 characters without a break', huge],
      ['newlines and runs of spaces', '  line one\n\n    line   three  '],
      ['an HTML entity', '&lt;b&gt;not bold&lt;/b&gt; &amp;'],
    ];

    it.each(hostile)('%s', (_label, text) => {
      const tags = (root: HTMLElement) => Array.from(root.querySelectorAll('*'), (element) => element.tagName);
      const plain = render(<EntryList entries={[entry(1, 'plain', 'plain')]} />);
      const plainTags = tags(plain.container);
      plain.unmount();

      const { container } = render(<EntryList entries={[entry(1, text, text)]} />);
      const { name, message } = parts(screen.getByTestId('log-entry'));

      expect(name.textContent).toBe(text);
      expect(message.textContent).toBe(text);
      // Exactly the elements harmless text gets: nothing was parsed out of the input.
      expect(tags(container)).toEqual(plainTags);
      expect(container.querySelectorAll('img, script, b')).toHaveLength(0);
    });

    it('gives user text its own direction, so right-to-left names and messages render as written', () => {
      render(<EntryList entries={[entry(1, 'שלום', 'مرحبا بالعالم')]} />);
      const { name, message } = parts(screen.getByTestId('log-entry'));
      expect(name).toHaveAttribute('dir', 'auto');
      expect(message).toHaveAttribute('dir', 'auto');
      expect(within(screen.getByTestId('log-entry')).getByText('مرحبا بالعالم')).toBe(message);
    });

    it('keeps line breaks and wraps very long words (white-space: pre-wrap; overflow-wrap: anywhere)', () => {
      render(<EntryList entries={[entry(1, huge, 'line one\nline two')]} />);
      const { name, message } = parts(screen.getByTestId('log-entry'));
      for (const element of [name, message]) {
        const style = getComputedStyle(element);
        expect(style.whiteSpace).toBe('pre-wrap');
        expect(style.overflowWrap).toBe('anywhere');
      }
    });
  });
});
