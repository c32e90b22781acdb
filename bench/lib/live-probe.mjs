// @ts-check
/* global window, document, requestAnimationFrame, MutationObserver */
// What the live benchmark runs inside the page it measures (an init script): when watched cards are painted, and
// how much wasm memory the page has.

/**
 * Init script (serialised by Playwright: nothing from this module's scope). Stamps, in ms since the epoch, the
 * first frame painted with each card the benchmark watches (`__liveWatch(name)` before its insert), by the card's
 * name: the card is in the DOM when the observer runs, the next frame's animation callbacks run before that frame
 * paints, and a message posted from there is handled once its rendering is done. Only watched names are kept, and
 * each is forgotten once read: the probe runs in the page it measures, so a name kept per insert would be heap
 * growth of the benchmark's own, counted as the page's.
 */
export function installArrivalProbe() {
  /** Watched names: undefined until the card shows, then 0 until painted, then the time it was painted. */
  /** @type {Map<string, number | undefined>} */
  const watched = new Map();
  const stamp = (/** @type {string} */ name) => {
    watched.set(name, 0);
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        if (watched.has(name)) watched.set(name, performance.timeOrigin + performance.now());
      };
      channel.port2.postMessage(null);
    });
  };
  const observer = new MutationObserver(() => {
    if (watched.size === 0) return;
    for (const card of document.querySelectorAll('[data-testid="log-entry"]')) {
      const name = card.querySelector('[dir="auto"]')?.textContent ?? '';
      if (watched.has(name) && watched.get(name) === undefined) stamp(name);
    }
  });
  const start = () => observer.observe(document.body, { childList: true, subtree: true });
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start);
  Object.defineProperty(window, '__liveWatch', { value: (/** @type {string} */ name) => void watched.set(name, undefined) });
  // The painted time, or null while not painted; a painted name is forgotten once read.
  Object.defineProperty(window, '__livePainted', {
    value: (/** @type {string} */ name) => {
      const at = watched.get(name);
      if (!at) return null;
      watched.delete(name);
      return at;
    },
  });

  // Wasm linear memory is not in the JS heap CDP reports: the instances' memories are kept so the heap run can
  // report it beside it (entries moved into wasm memory are still memory the page uses).
  /** @type {WebAssembly.Memory[]} */
  const memories = [];
  for (const name of /** @type {const} */ (['instantiate', 'instantiateStreaming'])) {
    const original = /** @type {(...args: unknown[]) => Promise<any>} */ (WebAssembly[name]);
    if (typeof original !== 'function') continue;
    /** @type {any} */ (WebAssembly)[name] = function (/** @type {unknown[]} */ ...args) {
      return original.apply(this, args).then((/** @type {any} */ result) => {
        const instance = result instanceof WebAssembly.Instance ? result : result.instance;
        for (const value of Object.values(instance.exports)) if (value instanceof WebAssembly.Memory) memories.push(value);
        return result;
      });
    };
  }
  Object.defineProperty(window, '__liveWasmBytes', { value: () => memories.reduce((sum, memory) => sum + memory.buffer.byteLength, 0) });
}
