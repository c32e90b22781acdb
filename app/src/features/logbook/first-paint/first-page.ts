import type { FirstRead } from '../reads/first-read';
import type { EntryRows } from '../types';

/**
 * Paints a first visit's first page as soon as the wasm client has read it, before React has loaded: `paint` is
 * handed the page's rows while they can be read (`EntryPages.onFirstPage`), and says whether it painted them.
 * Only a whole read's page is painted: a catch-up read's holds just the entries newer than the copy kept on this
 * device, which the entry script painted itself. Resolves to whether the page was painted, or to false as soon as
 * it will not be: a catch-up read, an empty first page, or a read that settled without a page (its error is the
 * logbook's to report, once React has rendered it). Must be called before the first page can arrive: right after
 * the read was started.
 */
export function paintFirstPage(visit: Pick<FirstRead, 'plan' | 'pages' | 'settled'>, paint: (firstPage: EntryRows) => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    // The read waits for its plan before it asks for a page, so the plan is settled by the time a page arrives.
    visit.pages.onFirstPage((firstPage) => resolve(visit.settled?.plan.kind === 'whole' && paint(firstPage)));
    void visit.plan.then(({ plan }) => {
      if (plan.kind !== 'whole') resolve(false);
    });
    visit.pages.done.then(
      () => resolve(false),
      () => resolve(false),
    );
  });
}
