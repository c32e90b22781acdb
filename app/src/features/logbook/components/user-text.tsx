import { useState, type ElementType } from 'react';
import { textStart } from './text-start';

// Where texts are cut: shared with the cards painted before React has loaded (first-paint/paint-entries.ts).
export { MESSAGE_LIMIT, NAME_LIMIT, textStart } from './text-start';

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
