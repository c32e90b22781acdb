import { afterEach, describe, expect, it } from 'vitest';
import { servedSignForm } from '@/testing/served-sign-form';
import { readServedForm, restoreServedFocus } from './served-form';

afterEach(() => {
  document.body.replaceChildren();
});

function form(): { name: HTMLInputElement; message: HTMLTextAreaElement } {
  document.body.replaceChildren();
  servedSignForm(document.body);
  return { name: document.querySelector('input')!, message: document.querySelector('textarea')! };
}

describe('the served form', () => {
  it('is read with its text, its focused field and the caret', () => {
    const { name, message } = form();
    name.value = 'Ann';
    message.value = 'Found it';
    message.focus();
    message.setSelectionRange(2, 5, 'backward');
    expect(readServedForm(document)).toEqual({
      fields: { name: 'Ann', message: 'Found it' },
      focus: { id: 'message', start: 2, end: 5, direction: 'backward' },
    });
  });

  it('is null where there is none, with no focus where neither field has it', () => {
    expect(readServedForm(document)).toBeNull();
    form();
    expect(readServedForm(document)?.focus).toBeNull();
  });

  it('gives the focus and caret to the new field of the same id, unless something else took the focus', () => {
    const { message } = form();
    message.value = 'Found it';
    restoreServedFocus(document, { id: 'message', start: 3, end: 3, direction: 'none' });
    expect(document.activeElement).toBe(message);
    expect([message.selectionStart, message.selectionEnd]).toEqual([3, 3]);

    const { name } = form();
    const button = document.createElement('button');
    document.body.append(button);
    button.focus();
    restoreServedFocus(document, { id: 'name', start: 0, end: 0, direction: null });
    expect(document.activeElement).toBe(button);
    expect(document.activeElement).not.toBe(name);
  });
});
