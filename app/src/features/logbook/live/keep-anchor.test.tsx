import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { VirtualItem } from '@tanstack/react-virtual';
import { fakeEntryList } from '@/testing/fake-entry-list';
import { EntryList } from '../components/entry-list';
import { anchorAt, anchorShift } from './keep-anchor';
import type { LogEntry } from '../types';

const row = (key: number, start: number, size = 100): VirtualItem => ({ key, index: key, start, end: start + size, size, lane: 0 });

describe('anchorAt', () => {
  it('is the first row reaching below the window\'s top', () => {
    const rows = [row(1, 0), row(2, 100), row(3, 200)];
    expect(anchorAt(rows, 150)).toEqual({ key: 2, start: 100 });
    expect(anchorAt(rows, 100)).toEqual({ key: 2, start: 100 });
    expect(anchorAt(rows, 0)).toEqual({ key: 1, start: 0 });
    expect(anchorAt(rows, 300)).toBeNull();
  });
});

describe('anchorShift', () => {
  it('is how far the anchor row moved, or 0 when it is gone', () => {
    const anchor = { key: 2, start: 100 };
    expect(anchorShift(anchor, [row(9, 0), row(8, 80), row(1, 160), row(2, 260)])).toBe(160);
    expect(anchorShift(anchor, [row(1, 0)])).toBe(0);
  });
});

describe('EntryList with entries arriving on top', () => {
  const CARD_HEIGHT = 100;
  const entry = (id: number): LogEntry => ({ id, created_at: '2024-05-01T10:00:00+00:00', name: `Finder ${id}`, message: 'Hi' });
  /** Newest first: ids from `newest` down to 1. */
  const list = (newest: number) => fakeEntryList(Array.from({ length: newest }, (_, index) => entry(newest - index)));
  let scrollTo: ReturnType<typeof vi.fn>;

  // jsdom has no layout: every card is 100 px tall, the list starts at the document's top, and scrolling the window
  // is recorded (and applied, as a browser would).
  beforeEach(() => {
    vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockImplementation(function (this: HTMLElement) {
      return this instanceof HTMLLIElement ? CARD_HEIGHT : 0;
    });
    scrollTo = vi.fn((options?: ScrollToOptions | number) => {
      if (typeof options !== 'object' || options.top === undefined) return;
      Object.defineProperty(window, 'scrollY', { configurable: true, value: options.top });
      // A browser reports the scroll after the frame, not inside the call.
      setTimeout(() => window.dispatchEvent(new Event('scroll')));
    });
    vi.spyOn(window, 'scrollTo').mockImplementation(scrollTo as unknown as typeof window.scrollTo);
    vi.spyOn(document.documentElement, 'scrollHeight', 'get').mockReturnValue(1e9);
    vi.spyOn(HTMLUListElement.prototype, 'getBoundingClientRect').mockImplementation(() =>
      DOMRect.fromRect({ x: 0, y: -window.scrollY, width: 600, height: 0 }),
    );
  });
  afterEach(() => {
    vi.restoreAllMocks();
    Object.defineProperty(window, 'scrollY', { configurable: true, value: 0 });
  });

  function scrollWindow(top: number) {
    Object.defineProperty(window, 'scrollY', { configurable: true, value: top });
    window.dispatchEvent(new Event('scroll'));
  }
  /**
   * The card at the window's top edge and how far into it the edge is, as laid out: the rendered cards follow the
   * list's top padding, each as tall as it measures.
   */
  function topCard(): [string | undefined, number] {
    let start = parseFloat(screen.getByRole('list').style.paddingTop || '0');
    for (const card of screen.getAllByTestId('log-entry')) {
      if (start + CARD_HEIGHT > window.scrollY) return [card.querySelector('[dir="auto"]')?.textContent ?? undefined, window.scrollY - start];
      start += CARD_HEIGHT;
    }
    return [undefined, 0];
  }
  /** Lets the window's scroll events arrive. */
  async function settle() {
    await act(() => new Promise((resolve) => setTimeout(resolve, 10)));
  }

  it('keeps the card being read in place when entries arrive above it', async () => {
    const { rerender } = render(<EntryList entries={list(500)} />);
    act(() => scrollWindow(50 * CARD_HEIGHT + 30));
    await settle();
    expect(topCard()).toEqual(['Finder 450', 30]);

    rerender(<EntryList entries={list(503)} />);
    await settle();

    expect(window.scrollY).toBeGreaterThan(53 * CARD_HEIGHT);
    expect(topCard()).toEqual(['Finder 450', 30]);
  });

  it('does not scroll a reader at the top of the list: the new entries come into view', async () => {
    const { rerender } = render(<EntryList entries={list(500)} />);
    await settle();
    rerender(<EntryList entries={list(502)} />);
    await settle();
    expect(window.scrollY).toBe(0);
    expect(topCard()).toEqual(['Finder 502', 0]);
  });
});
