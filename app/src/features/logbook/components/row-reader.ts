import type { EntryContentProps } from './entry-content';
import type { EntryRows } from '../types';

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
export class RowReader {
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
