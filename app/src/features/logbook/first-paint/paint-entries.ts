import { formatCreatedAt } from '../components/format-created-at';
import { MESSAGE_LIMIT, NAME_LIMIT, textStart } from '../components/text-start';
import type { EntryRows } from '../types';

/**
 * Cards painted: as many as a phone's screen shows below the form, with some to spare. Each costs layout in the frame
 * that shows them, which a slow phone feels: React renders the rest.
 */
export const PAINTED_CARDS = 10;

/** The served HTML's empty list, which the build prerenders (app/build/prerender-logbook.ts); null without one. */
export function servedList(root: HTMLElement): Element | null {
  const list = root.querySelector('.logbook-entries .entry-list');
  return list !== null && list.childElementCount === 0 ? list : null;
}

/**
 * Paints the first entries into the logbook's served HTML (its empty list), as the list's own cards (EntryContent)
 * look, before React has loaded: the entries kept on this device on a repeat visit, the first page the wasm client
 * read on a first visit. On a slow phone, React's code takes longer to arrive and run than either. React then
 * renders the page over it, these entries included. Texts go in as text (textContent), never as markup. A text
 * that is cut shows its start; the button for the rest comes with React. False when there is no such list to fill
 * (React already owns the page, or entries were painted already) or nothing to show. The rows are read during the
 * call only: a client list may be freed once it returns.
 */
export function paintEntries(root: HTMLElement, rows: EntryRows): boolean {
  const list = servedList(root);
  if (list === null || rows.length === 0) return false;
  const document = root.ownerDocument;
  const text = (tag: string, className: string, value: string, limit: number) => {
    const element = document.createElement(tag);
    const start = textStart(value, limit);
    element.className = start.length < value.length ? `${className} user-text is-cut` : `${className} user-text`;
    element.dir = 'auto';
    element.textContent = start;
    return element;
  };
  const cards = Array.from({ length: Math.min(rows.length, PAINTED_CARDS) }, (_, index) => {
    const createdAt = rows.createdAt(index);
    const card = document.createElement('li');
    card.className = 'card entry';
    card.dataset.testid = 'log-entry';
    const meta = document.createElement('div');
    meta.className = 'entry-meta';
    const time = document.createElement('time');
    time.className = 'entry-time';
    time.dateTime = createdAt;
    time.textContent = formatCreatedAt(createdAt);
    meta.append(text('span', 'entry-name', rows.name(index), NAME_LIMIT), time);
    card.append(meta, text('p', 'entry-message', rows.message(index), MESSAGE_LIMIT));
    return card;
  });
  list.append(...cards);
  // "Loading entries…" under the heading: the list is no longer empty.
  root.querySelector('.logbook-entries .list-note')?.remove();
  return true;
}
