import type { EntryRows } from './list-entries';

/**
 * The list a reload shows while the whole list is still on its way: the newest entries just read,
 * then the rest of the list already shown. Correct when the newest entries reach into the shown list
 * (entries are only ever added, newest first): everything after the last of them is unchanged. Null
 * when they do not reach it (more entries were added than one screen holds), so nothing is guessed.
 */
export function withNewest(newest: EntryRows, shown: EntryRows): EntryRows | null {
  const newestIds = newest.ids();
  const shownIds = shown.ids();
  const lastNewest = newestIds[newestIds.length - 1];
  if (lastNewest === undefined) return null;
  const overlap = shownIds.indexOf(lastNewest);
  if (overlap < 0) return null;
  const rest = overlap + 1;
  const head = newestIds.length;
  const ids = new Float64Array(head + shownIds.length - rest);
  ids.set(newestIds);
  ids.set(shownIds.subarray(rest), head);
  const read =
    <T>(field: (rows: EntryRows, index: number) => T) =>
    (index: number): T =>
      index < head ? field(newest, index) : field(shown, index - head + rest);
  return {
    length: ids.length,
    ids: () => ids,
    createdAt: read((rows, index) => rows.createdAt(index)),
    name: read((rows, index) => rows.name(index)),
    message: read((rows, index) => rows.message(index)),
  };
}
