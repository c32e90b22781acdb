import type { KeptEntry } from '../types';

/** Signs remembered at most: the page sends one at a time, plus a few waiting on the device. */
const REMEMBERED = 16;

/** A sign's text. */
export interface SignText {
  readonly name: string;
  readonly message: string;
}

/**
 * The signs this page sent recently, so their own arrival over the live channel is shown but not announced as a
 * new entry (the live region already says "Signed."). Matched by text, each sign once: the insert's id is not
 * known to the page before its row arrives.
 */
export class OwnSigns {
  private readonly sent: SignText[] = [];

  /** Remembers a sign about to be sent. */
  expect(sign: SignText): void {
    this.sent.push({ name: sign.name, message: sign.message });
    if (this.sent.length > REMEMBERED) this.sent.shift();
  }

  /** Whether `entry` is one of those signs (forgotten once matched). */
  claim(entry: KeptEntry): boolean {
    const index = this.sent.findIndex((sign) => sign.name === entry.name && sign.message === entry.message);
    if (index < 0) return false;
    this.sent.splice(index, 1);
    return true;
  }
}
