import { STATUS } from '../status/messages';
import type { EarlySigns } from '../sign/early-sign-handle';

/** The served sign form (components/sign-form.tsx renders it, and the build prerenders it). */
const SIGN_FORM = 'form.sign-form';

/** A random (version 4) UUID, the form the database takes as a sign's key. */
export function randomKey(crypto: Crypto = globalThis.crypto): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  // randomUUID needs a secure context; a page served over plain HTTP from another address has only random bytes.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Takes every submit of the served sign form from the start, before the page's scripts have loaded: the page's policy
 * (`form-action 'none'`) refuses the form's own submission, so without this a press or an Enter would do nothing.
 * The browser has checked the required fields by then. The sign is accepted at once (the button and the live region
 * say "Signing…", as the page's own form does), given its key, and left in `signs` for the page's scripts, which send
 * it the moment the client can (sign/early-sign.ts). Once the logbook's form has taken over, it handles its own
 * submits (React prevents their default first) and this does nothing.
 */
export function takeServedSubmits(document: Document, signs: EarlySigns, newKey: () => string = randomKey): void {
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement) || !form.matches(SIGN_FORM)) return;
    event.preventDefault();
    // One sign at a time, as on the logbook's form, whose button is disabled while one is in flight.
    if (signs.pending !== undefined) return;
    const name = form.elements.namedItem('name');
    const message = form.elements.namedItem('message');
    if (!(name instanceof HTMLInputElement) || !(message instanceof HTMLTextAreaElement)) return;
    signs.pending = { name: name.value, message: message.value, idempotencyKey: newKey() };
    const button = form.querySelector('button[type="submit"]');
    if (button instanceof HTMLButtonElement) {
      button.disabled = true;
      button.textContent = STATUS.signing;
    }
    const status = document.querySelector('[data-testid="logbook-status"]');
    if (status !== null) status.textContent = STATUS.signing;
    signs.onPress?.();
  });
}
