// @ts-check
// The parse benchmark's fixture server replays the emulator's keyset pages: which recorded page a request asks for.

/**
 * Which recorded page a list request asks for: the first without `or`, else the page after the one that ends
 * with the cursor's id (`...id.lt.<id>))`). Null for a cursor no page ends with.
 * @param {URLSearchParams} query
 * @param {readonly { last: { id: number } | null }[]} pages
 */
export function pageIndexFor(query, pages) {
  const filter = query.get('or');
  if (filter === null) return pages.length > 0 ? 0 : null;
  const cursor = /id\.lt\.(-?\d+)\)\)$/.exec(filter);
  if (!cursor) return null;
  const after = pages.findIndex((page) => page.last !== null && page.last.id === Number(cursor[1]));
  return after === -1 || after + 1 >= pages.length ? null : after + 1;
}
