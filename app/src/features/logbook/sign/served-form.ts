import type { NewEntry } from '../types';

/** Where the caret stood in a field of the served form. */
export interface ServedFocus {
  readonly id: 'name' | 'message';
  readonly start: number | null;
  readonly end: number | null;
  readonly direction: 'forward' | 'backward' | 'none' | null;
}

/** What the visitor did in the served form before the logbook's own form took its place. */
export interface ServedForm {
  readonly fields: NewEntry;
  /** The field that had the focus, with its caret; null when neither had it. */
  readonly focus: ServedFocus | null;
}

/**
 * The served form's text and focus (the fields `#name` and `#message`), read as the logbook's form is rendered to
 * replace it: the served form takes input from its first paint, and nothing typed there is lost. Null where there is
 * no served form (the dev server, a page that rendered without one).
 */
export function readServedForm(document: Document): ServedForm | null {
  const name = document.getElementById('name');
  const message = document.getElementById('message');
  if (!(name instanceof HTMLInputElement) || !(message instanceof HTMLTextAreaElement)) return null;
  const active = document.activeElement;
  const focused = active === name ? name : active === message ? message : null;
  return {
    fields: { name: name.value, message: message.value },
    focus:
      focused === null
        ? null
        : { id: focused.id as ServedFocus['id'], start: focused.selectionStart, end: focused.selectionEnd, direction: focused.selectionDirection },
  };
}

/** Gives the focus and caret back to the field of the same id, which the logbook's form has just put in place. */
export function restoreServedFocus(document: Document, focus: ServedFocus): void {
  const field = document.getElementById(focus.id);
  if (!(field instanceof HTMLInputElement) && !(field instanceof HTMLTextAreaElement)) return;
  // Only if nothing else took the focus meanwhile (the document's body has it once the served field is gone).
  if (document.activeElement !== null && document.activeElement !== document.body && document.activeElement !== field) return;
  field.focus({ preventScroll: true });
  field.setSelectionRange(focus.start, focus.end, focus.direction ?? undefined);
}
