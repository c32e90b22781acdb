/** Characters of a message shown before "Show all": about 25 lines of a card. */
export const MESSAGE_LIMIT = 2_000;
/** Characters of a name shown before "Show all": a few lines. */
export const NAME_LIMIT = 200;

// Created once: cuts fall between user-perceived characters (an emoji sequence or a letter with its
// combining marks is never split).
const graphemes = /* @__PURE__ */ new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The start of `text`: whole graphemes, at most `limit` UTF-16 units, or the whole text when it fits.
 * Only the start is segmented, so a megabyte of text costs no more than its first screen.
 */
export function textStart(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = 0;
  // A grapheme is rarely longer than a few dozen units; the margin lets the last one be seen whole.
  for (const { index, segment } of graphemes.segment(text.slice(0, limit + 64))) {
    if (index + segment.length > limit) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}
