/* global window, document, requestAnimationFrame, getComputedStyle */
// Code that runs inside the page under test. `installProbe` is an init script (it runs before the page's own
// scripts, serialised by Playwright, so it must not use anything from this module's scope). It stamps, on the
// page's clock (performance.now() counts from navigation start):
// - firstCardPainted: the first frame painted with an entry card in it;
// - usablePainted: the first frame painted with the oldest entry visible after scrolling the list's scroll
//   container to the bottom ("fully usable": every entry is reachable).
// A stamp is taken after the frame is painted: a message posted from requestAnimationFrame runs once that
// frame's style, layout and paint are done. A page that never shows the oldest entry (one capped read) never
// gets the second stamp; `reach()` then says how far down the list goes.

/**
 * @param {{ oldestCreatedAt: string }} options
 */
export function installProbe({ oldestCreatedAt }) {
  const CARD = '[data-testid="log-entry"]';
  const marks = {
    firstCardPainted: /** @type {number | null} */ (null),
    usablePainted: /** @type {number | null} */ (null),
  };
  /** @type {WebAssembly.Memory[]} */
  const wasmMemories = [];

  // Wasm linear memory is not part of the JS heap CDP reports: keep the instances' memories so the heap
  // figure can include them (entries kept in wasm memory are still memory the page uses).
  /** @param {WebAssembly.Instance} instance */
  const keepMemories = (instance) => {
    for (const value of Object.values(instance.exports)) if (value instanceof WebAssembly.Memory) wasmMemories.push(value);
  };
  for (const name of /** @type {const} */ (['instantiate', 'instantiateStreaming'])) {
    const original = /** @type {(...args: unknown[]) => Promise<any>} */ (WebAssembly[name]);
    if (typeof original !== 'function') continue;
    /** @type {any} */ (WebAssembly)[name] = function (/** @type {unknown[]} */ ...args) {
      return original.apply(this, args).then((/** @type {any} */ result) => {
        keepMemories(result instanceof WebAssembly.Instance ? result : result.instance);
        return result;
      });
    };
  }

  /** Calls back with the time once the current frame has been painted. */
  const afterPaint = (/** @type {(time: number) => void} */ record) => {
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => record(performance.now());
      channel.port2.postMessage(null);
    });
  };
  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

  /** The nearest scrolling ancestor of the list (a virtualised list's viewport), else the document. */
  const scrollContainer = (/** @type {Element} */ card) => {
    for (let element = card.parentElement; element && element !== document.body; element = element.parentElement) {
      const { overflowY } = getComputedStyle(element);
      const scrolls = overflowY === 'auto' || overflowY === 'scroll' || overflowY === 'overlay';
      if (scrolls && element.scrollHeight > element.clientHeight + 1) return element;
    }
    return document.scrollingElement ?? document.documentElement;
  };
  const viewportOf = (/** @type {Element} */ container) =>
    container === document.scrollingElement || container === document.documentElement
      ? { top: 0, bottom: window.innerHeight }
      : container.getBoundingClientRect();
  const isVisibleIn = (/** @type {Element} */ element, /** @type {Element} */ container) => {
    const box = element.getBoundingClientRect();
    const view = viewportOf(container);
    return box.height > 0 && box.bottom > view.top && box.top < view.bottom;
  };

  const oldestSelector = `${CARD} time[datetime="${oldestCreatedAt}"]`;
  let firstSeen = false;
  const watch = () => {
    const first = document.querySelector(CARD);
    if (first && !firstSeen) {
      // This frame paints the first card: stamp it, and leave the scroll position alone until the next one.
      firstSeen = true;
      afterPaint((time) => (marks.firstCardPainted = time));
      requestAnimationFrame(watch);
      return;
    }
    if (first) {
      const container = scrollContainer(first);
      const oldest = document.querySelector(oldestSelector);
      if (oldest && isVisibleIn(oldest, container)) {
        afterPaint((time) => (marks.usablePainted = time));
        return;
      }
      container.scrollTop = container.scrollHeight;
    }
    requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);

  const tools = {
    CARD,
    marks,
    cardsInDom: () => document.querySelectorAll(CARD).length,
    wasmMemoryBytes: () => wasmMemories.reduce((sum, memory) => sum + memory.buffer.byteLength, 0),
    /**
     * Scrolls the list in `steps` frames and returns the frame intervals (ms). "through": from the top to the
     * bottom in equal jumps (dragging the scroll bar to the end); "steady": `stepPx` a frame from the middle
     * (wheel or touch scrolling).
     */
    async scrollFrames(/** @type {'through' | 'steady'} */ mode, /** @type {number} */ steps, stepPx = 120) {
      const first = document.querySelector(CARD);
      if (!first) throw new Error('no entry card to scroll');
      const container = scrollContainer(first);
      const range = () => container.scrollHeight - container.clientHeight;
      container.scrollTop = mode === 'through' ? 0 : Math.round(range() / 2);
      await nextFrame();
      await nextFrame();
      const intervals = [];
      let last = /** @type {number} */ (await nextFrame());
      for (let step = 1; step <= steps; step += 1) {
        // Re-read the range each frame: a virtualised list may change its estimate while it measures rows.
        if (mode === 'through') container.scrollTop = Math.round((range() * step) / steps);
        else container.scrollTop += stepPx;
        const now = /** @type {number} */ (await nextFrame());
        intervals.push(now - last);
        last = now;
      }
      return intervals;
    },
    /**
     * Scrolls the list to its end until the last card stays the same for a few frames (a virtualised list
     * measures rows as they appear), and says which entry that last card is: its position from the newest
     * (a virtualised card's data-index, else its place among the cards) and its created_at. The entries
     * reachable on the page are that position + 1.
     */
    async reach() {
      const first = document.querySelector(CARD);
      if (!first) return null;
      const container = scrollContainer(first);
      const lastCard = () => {
        const cards = [...document.querySelectorAll(CARD)];
        let position = cards.length - 1;
        let card = cards[position];
        const indexed = cards.filter((element) => element.hasAttribute('data-index'));
        if (indexed.length > 0) {
          const indexOf = (/** @type {Element} */ element) => Number(element.getAttribute('data-index'));
          card = indexed.reduce((best, element) => (indexOf(element) > indexOf(best) ? element : best));
          position = indexOf(card);
        }
        return { position, createdAt: card?.querySelector('time')?.getAttribute('datetime') ?? null };
      };
      let last = lastCard();
      for (let frame = 0, stable = 0; frame < 600 && stable < 5; frame += 1) {
        container.scrollTop = container.scrollHeight;
        await nextFrame();
        const now = lastCard();
        stable = now.position === last.position && now.createdAt === last.createdAt ? stable + 1 : 0;
        last = now;
      }
      return { entries: last.position + 1, lastCreatedAt: last.createdAt };
    },
    async scrollToTop() {
      const first = document.querySelector(CARD);
      if (first) scrollContainer(first).scrollTop = 0;
      window.scrollTo(0, 0);
      await nextFrame();
      await nextFrame();
    },
    /**
     * Clicks "Sign Logbook" (the form is already filled) and resolves with the time until a frame is painted
     * whose first entry card is the new entry.
     */
    signAndWait(/** @type {string} */ name) {
      const button = [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Sign Logbook');
      if (!button) throw new Error('no "Sign Logbook" button');
      return new Promise((resolve) => {
        const start = performance.now();
        const poll = () => {
          const first = document.querySelector(CARD);
          if (first?.textContent?.includes(name)) afterPaint((time) => resolve(time - start));
          else requestAnimationFrame(poll);
        };
        button.click();
        requestAnimationFrame(poll);
      });
    },
  };
  Object.defineProperty(window, '__bench', { value: tools });
}
