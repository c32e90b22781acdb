import { useMemo, useState } from 'react';
import { measureElement, useWindowVirtualizer } from '@tanstack/react-virtual';
import { useKeepAnchor } from '../live/keep-anchor';
import { EntryContent } from './entry-content';
import { RowReader } from './row-reader';
import { TypicalHeight } from './typical-height';
import { useListLayout } from './use-list-layout';
import type { EntryRows } from '../types';

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
  // Entries arriving at the top while the reader is further down do not move what they read.
  useKeepAnchor(virtualizer, entries.length > 0 ? rows.id(0) : undefined);
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
