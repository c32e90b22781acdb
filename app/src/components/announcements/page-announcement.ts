/** Says a message in the page's live region. */
type Say = (text: string) => void;

/** The page's live region, when one is shown (the logbook's). */
const listeners = new Set<Say>();
/** A message given while no live region was shown, with what its giver does once one says it. */
let unheard: { readonly text: string; readonly saidLater: () => void } | null = null;

/**
 * Asks the page's one polite live region to say `text`, for what is shown outside it (the update prompt). Returns
 * false when no live region is shown: the caller then announces it itself, and `saidLater` runs if one appears and
 * says it after all (the prompt can come before the logbook has rendered).
 */
export function announceOnPage(text: string, saidLater: () => void = () => undefined): boolean {
  if (listeners.size === 0) {
    unheard = { text, saidLater };
    return false;
  }
  for (const say of listeners) say(text);
  return true;
}

/**
 * Lets the page's live region say what `announceOnPage` is given, starting with a message given before it was
 * shown. Returns the function that stops it.
 */
export function listenForAnnouncements(say: Say): () => void {
  listeners.add(say);
  if (unheard !== null) {
    const { text, saidLater } = unheard;
    unheard = null;
    say(text);
    saidLater();
  }
  return () => listeners.delete(say);
}
