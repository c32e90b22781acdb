import type { KeptHead } from '../types';

/** What the served page's inline script did with the copy kept on this device (early-paint.ts). */
export interface EarlyPaint {
  /** The copy's head as read, or null when there was none (or no IndexedDB). */
  readonly kept: KeptHead | null;
  /** Whether its newest entries were painted into the served list. */
  readonly painted: boolean;
}

/**
 * The window property the inline script leaves its work under for the page's scripts, which load after it. A
 * property of the window rather than a module export: the inline script is built apart from them
 * (app/build/inline-early-paint.ts) and shares no module instance with them.
 */
export const EARLY_PAINT_PROPERTY = 'geocacheEarlyPaint';

type WithEarlyPaint = { [EARLY_PAINT_PROPERTY]?: Promise<EarlyPaint> };

/** The inline script's work, or undefined where it did not run (the dev server, a teaser, a host's stricter policy). */
export function earlyPaintOf(window: Window): Promise<EarlyPaint> | undefined {
  return (window as unknown as WithEarlyPaint)[EARLY_PAINT_PROPERTY];
}

/** Leaves the inline script's work for the page's scripts to take up. */
export function leaveEarlyPaint(window: Window, paint: Promise<EarlyPaint>): void {
  (window as unknown as WithEarlyPaint)[EARLY_PAINT_PROPERTY] = paint;
}
