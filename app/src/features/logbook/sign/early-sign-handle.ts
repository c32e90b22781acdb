/** A sign pressed before the page's scripts took the form over, with the key it is stored under. */
export interface EarlySign {
  readonly name: string;
  readonly message: string;
  readonly idempotencyKey: string;
}

/** Where the served page's inline script leaves a sign pressed before the page's scripts have loaded. */
export interface EarlySigns {
  /** The sign pressed and not yet taken by the page's scripts. */
  pending: EarlySign | undefined;
  /** Set by the page's scripts once they have loaded: called when a sign is pressed. */
  onPress: (() => void) | undefined;
}

/**
 * The window property the inline script leaves its signs under: it is built apart from the page's scripts
 * (app/build/inline-early-paint.ts) and shares no module instance with them.
 */
export const EARLY_SIGNS_PROPERTY = 'geocacheEarlySigns';

type WithEarlySigns = { [EARLY_SIGNS_PROPERTY]?: EarlySigns };

/** The inline script's signs, or undefined where it did not run (the dev server, a host's stricter policy). */
export function earlySignsOf(window: Window): EarlySigns | undefined {
  return (window as unknown as WithEarlySigns)[EARLY_SIGNS_PROPERTY];
}

/** Leaves the inline script's signs for the page's scripts to take up. */
export function leaveEarlySigns(window: Window, signs: EarlySigns): void {
  (window as unknown as WithEarlySigns)[EARLY_SIGNS_PROPERTY] = signs;
}
