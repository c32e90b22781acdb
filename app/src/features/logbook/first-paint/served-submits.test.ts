import { afterEach, describe, expect, it, vi } from 'vitest';
import { servedSignForm } from '@/testing/served-sign-form';
import type { EarlySigns } from '../sign/early-sign-handle';
import { randomKey, takeServedSubmits } from './served-submits';

const KEY = '0f8fad5b-d9cb-469f-a165-70867728950e';

function servedPage(): HTMLFormElement {
  return servedSignForm(document.body, { name: 'Ann', message: 'Hi' });
}

/** A submit as the browser fires it after its checks; true when nothing prevented its default. */
const submit = (form: HTMLFormElement) => form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));

afterEach(() => {
  document.body.replaceChildren();
});

describe('takeServedSubmits', () => {
  // Each test's listener stays on the document: each test has a form and signs of its own.
  it('takes a press at once, with its key, says "Signing…" and tells the page\'s scripts', () => {
    const form = servedPage();
    const signs: EarlySigns = { pending: undefined, onPress: vi.fn() };
    takeServedSubmits(document, signs, () => KEY);
    expect(submit(form)).toBe(false);
    expect(signs.pending).toEqual({ name: 'Ann', message: 'Hi', idempotencyKey: KEY });
    expect(signs.onPress).toHaveBeenCalledOnce();
    const button = form.querySelector('button')!;
    expect(button.disabled).toBe(true);
    expect(button.textContent).toBe('Signing…');
    expect(document.querySelector('[role=status]')!.textContent).toBe('Signing…');
    // One sign at a time: a second press keeps the first.
    (form.elements.namedItem('name') as HTMLInputElement).value = 'Bo';
    expect(submit(form)).toBe(false);
    expect(signs.pending?.name).toBe('Ann');
  });

  it('leaves alone a submit the page\'s own form handled, and other forms', () => {
    const form = servedPage();
    const signs: EarlySigns = { pending: undefined, onPress: undefined };
    takeServedSubmits(document, signs, () => KEY);
    form.addEventListener('submit', (event) => event.preventDefault(), { once: true });
    submit(form);
    const other = document.createElement('form');
    document.body.append(other);
    expect(submit(other)).toBe(true);
    expect(signs.pending).toBeUndefined();
  });
});

describe('randomKey', () => {
  const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('is a version 4 UUID, from random bytes where randomUUID is missing', () => {
    expect(randomKey()).toMatch(UUID_V4);
    const bytesOnly = { getRandomValues: (array: Uint8Array<ArrayBuffer>) => crypto.getRandomValues(array) } as unknown as Crypto;
    const key = randomKey(bytesOnly);
    expect(key).toMatch(UUID_V4);
    expect(key).not.toBe(randomKey(bytesOnly));
  });
});
