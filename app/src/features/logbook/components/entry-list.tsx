import { memo, useMemo, useState, useSyncExternalStore } from 'react';
import { measureElement, useWindowVirtualizer } from '@tanstack/react-virtual';
import type { EntryRows } from '../api/list-entries';
import { MESSAGE_LIMIT, NAME_LIMIT, UserText } from './user-text';

// Created once: the viewer's locale and time zone, e.g. "Jan 1, 2024, 1:00 PM".
const localTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function formatCreatedAt(createdAt: string): string {
  const instant = new Date(createdAt);
  // The client has validated the timestamp, but a form this browser cannot parse is shown as sent
  // rather than breaking the page.
  return Number.isNaN(instant.getTime()) ? createdAt : localTime.format(instant);
}

/** Cards rendered beyond each edge of the window, so a fast scroll rarely shows a gap. */
const OVERSCAN = 5;
/** A card's height before any is measured: a name line and two lines of message. */
const FIRST_ESTIMATE = 112;

interface EntryListProps {
  /** Shown in the order given (the client already sorts newest first). */
  readonly entries: EntryRows;
}

/**
 * One card per entry. Only the cards in and near the window are in the document (the page scrolls
 * as a whole; the rest of the list is padding of its measured or estimated height), and a card
 * whose entry did not change is not rendered again. User text is rendered as text only, with its
 * own direction, and a very long one is cut until asked for (UserText).
 */
export function EntryList({ entries }: EntryListProps) {
  const [list, setList] = useState<HTMLUListElement | null>(null);
  const layout = useListLayout(list);
  const rows = useMemo(() => new RowReader(entries), [entries]);
  const heights = useMemo(() => new TypicalHeight(FIRST_ESTIMATE), []);
  const virtualizer = useWindowVirtualizer({
    count: entries.length,
    // Most cards are as tall as the most common measured card; a right guess spares the
    // virtualiser re-laying out every later row when a card is measured.
    estimateSize: () => heights.typical,
    measureElement: (element, entry, instance) => heights.record(measureElement(element, entry, instance)),
    overscan: OVERSCAN,
    gap: layout.gap,
    scrollMargin: layout.top,
    // Measured heights follow the entry, not its position, across reloads.
    getItemKey: (index) => rows.id(index),
  });
  const cards = virtualizer.getVirtualItems();
  const first = cards[0];
  const last = cards[cards.length - 1];
  const before = first ? first.start - layout.top : 0;
  const after = last ? virtualizer.getTotalSize() - (last.end - layout.top) : 0;

  return (
    <ul ref={setList} className="entry-list" style={{ paddingTop: before, paddingBottom: after }}>
      {cards.map((card) => (
        <li
          key={card.key}
          ref={virtualizer.measureElement}
          data-index={card.index}
          className="card entry"
          data-testid="log-entry"
        >
          <EntryContent {...rows.row(card.index)} />
        </li>
      ))}
    </ul>
  );
}

/**
 * Rows kept read: well over a window of cards, far under a long list (so scrolling through 100,000
 * entries does not copy them all into the JS heap).
 */
const CACHED_ROWS = 512;

/**
 * Reads a list's rows from wasm memory once while they are near the window: re-renders (every
 * scroll step renders the list) reuse the strings, and unchanged cards get equal props. The ids are
 * copied out in one go, since the virtualiser keys every row, rendered or not.
 */
class RowReader {
  private readonly entries: EntryRows;
  private readonly ids: Float64Array;
  private readonly rows = new Map<number, EntryContentProps>();

  constructor(entries: EntryRows) {
    this.entries = entries;
    this.ids = entries.ids();
  }

  id(index: number): number {
    return this.ids[index] ?? index;
  }

  row(index: number): EntryContentProps {
    let row = this.rows.get(index);
    if (!row) {
      if (this.rows.size >= CACHED_ROWS) this.rows.clear();
      const { entries } = this;
      row = { name: entries.name(index), createdAt: entries.createdAt(index), message: entries.message(index) };
      this.rows.set(index, row);
    }
    return row;
  }
}

/** The most common card height measured so far. */
class TypicalHeight {
  private readonly counts = new Map<number, number>();
  private best = 0;
  typical: number;

  constructor(first: number) {
    this.typical = first;
  }

  record(height: number): number {
    const count = (this.counts.get(height) ?? 0) + 1;
    this.counts.set(height, count);
    if (count > this.best) {
      this.best = count;
      this.typical = height;
    }
    return height;
  }
}

interface EntryContentProps {
  readonly name: string;
  readonly createdAt: string;
  readonly message: string;
}

/** A card's content; skipped on re-render when its entry's text is unchanged. */
const EntryContent = memo(function EntryContent({ name, createdAt, message }: EntryContentProps) {
  return (
    <>
      <div className="entry-meta">
        <UserText as="span" className="entry-name" text={name} limit={NAME_LIMIT} what="name" />
        <time className="entry-time" dateTime={createdAt}>
          {formatCreatedAt(createdAt)}
        </time>
      </div>
      <UserText as="p" className="entry-message" text={message} limit={MESSAGE_LIMIT} what="message" />
    </>
  );
});

/**
 * Where the list starts in the document (the window scroll reaches it there; the form above it can
 * grow) and the gap between its cards (the stylesheet's row gap). Read when the list mounts and
 * whenever the page's size changes, never during a render (that would force a layout per frame).
 */
function useListLayout(list: HTMLUListElement | null): ListLayout {
  const store = useMemo(() => new LayoutStore(list), [list]);
  return useSyncExternalStore(store.subscribe, store.snapshot);
}

interface ListLayout {
  readonly top: number;
  readonly gap: number;
}

class LayoutStore {
  private readonly list: HTMLUListElement | null;
  private layout: ListLayout = { top: 0, gap: 0 };

  constructor(list: HTMLUListElement | null) {
    this.list = list;
  }

  readonly snapshot = (): ListLayout => this.layout;

  readonly subscribe = (changed: () => void): (() => void) => {
    const { list } = this;
    if (!list) return () => undefined;
    const read = () => {
      const top = list.getBoundingClientRect().top + window.scrollY;
      const gap = parseFloat(getComputedStyle(list).rowGap) || 0;
      if (top !== this.layout.top || gap !== this.layout.gap) {
        this.layout = { top, gap };
        changed();
      }
    };
    read();
    if (typeof ResizeObserver === 'undefined') return () => undefined;
    const observer = new ResizeObserver(read);
    observer.observe(document.body);
    return () => observer.disconnect();
  };
}
