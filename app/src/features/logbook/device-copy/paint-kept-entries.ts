import { formatCreatedAt } from '../components/format-created-at';
import { MESSAGE_LIMIT, NAME_LIMIT, textStart } from '../components/text-start';
import type { KeptEntry } from './newest-first';

/**
 * Cards painted: as many as a phone's screen shows below the form, with some to spare. Each costs layout in the frame
 * that shows them (on the mobile profile, 20 cards took that frame about 55 ms longer than 8); React renders the rest.
 */
export const PAINTED_CARDS = 10;

/**
 * Paints the first of the entries kept on this device into the logbook's served HTML (its empty list), as the
 * list's own cards (EntryContent) look, before React has loaded: on a slow phone, React's code takes longer to run
 * than the copy takes to read. React then renders the page over it, these entries included. A text that is cut
 * shows its start; the button for the rest comes with React. False when there is no such list to fill (React
 * already owns the page) or nothing to show.
 */
export function paintKeptEntries(root: HTMLElement, entries: readonly KeptEntry[]): boolean {
  const list = root.querySelector('.logbook-entries .entry-list');
  if (list === null || list.childElementCount > 0 || entries.length === 0) return false;
  const document = root.ownerDocument;
  const text = (tag: string, className: string, value: string, limit: number) => {
    const element = document.createElement(tag);
    const start = textStart(value, limit);
    element.className = start.length < value.length ? `${className} user-text is-cut` : `${className} user-text`;
    element.dir = 'auto';
    element.textContent = start;
    return element;
  };
  const cards = entries.slice(0, PAINTED_CARDS).map((entry) => {
    const card = document.createElement('li');
    card.className = 'card entry';
    card.dataset.testid = 'log-entry';
    const meta = document.createElement('div');
    meta.className = 'entry-meta';
    const time = document.createElement('time');
    time.className = 'entry-time';
    time.dateTime = entry.created_at;
    time.textContent = formatCreatedAt(entry.created_at);
    meta.append(text('span', 'entry-name', entry.name, NAME_LIMIT), time);
    card.append(meta, text('p', 'entry-message', entry.message, MESSAGE_LIMIT));
    return card;
  });
  list.append(...cards);
  // "Loading entries…" under the heading: the list is no longer empty.
  root.querySelector('.logbook-entries .list-note')?.remove();
  return true;
}
