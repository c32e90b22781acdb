import { useState, type ElementType } from 'react';

/** Characters of a message shown before "Show all": about 25 lines of a card. */
export const MESSAGE_LIMIT = 2_000;
/** Characters of a name shown before "Show all": a few lines. */
export const NAME_LIMIT = 200;

// Created once: cuts fall between user-perceived characters (an emoji sequence or a letter with its
// combining marks is never split).
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

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

interface UserTextProps {
  readonly text: string;
  /** Longer texts are cut there until the visitor asks for all of it. */
  readonly limit: number;
  /** The element holding the text (its textContent is the text, or its start). */
  readonly as: ElementType;
  readonly className: string;
  /** What the text is, for the button: "message" gives "Show the whole message". */
  readonly what: string;
}

/**
 * A visitor's text, as text, in its own direction. A very long one is shown cut, with a button for
 * the rest: laying out a megabyte of text (of emoji above all, about a minute in Chromium) would
 * freeze the page of every visitor, when one of them signed with it.
 */
export function UserText({ text, limit, as: Element, className, what }: UserTextProps) {
  const [whole, setWhole] = useState(false);
  const start = whole ? text : textStart(text, limit);
  const cut = start.length < text.length;
  const long = whole || cut;
  return (
    <>
      <Element className={cut ? `${className} user-text is-cut` : `${className} user-text`} dir="auto">
        {start}
      </Element>
      {long && (
        <button type="button" className="user-text-toggle" aria-expanded={whole} onClick={() => setWhole(!whole)}>
          {whole ? `Show less of the ${what}` : `Show the whole ${what}`}
        </button>
      )}
    </>
  );
}
