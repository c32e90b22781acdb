/** The longest a task put off by `whenIdle` waits for an idle moment, in ms. */
export const IDLE_DEADLINE_MS = 1000;

/**
 * Runs `task` once the browser is idle (after the frames it owes have been painted), or after `IDLE_DEADLINE_MS`
 * at the latest: work the visitor does not see waits behind what they do. Where the browser has no
 * `requestIdleCallback`, it runs after the next frame.
 */
export function whenIdle(task: () => void): void {
  if (typeof requestIdleCallback === 'function') {
    requestIdleCallback(task, { timeout: IDLE_DEADLINE_MS });
    return;
  }
  if (typeof requestAnimationFrame === 'function') {
    requestAnimationFrame(() => setTimeout(task));
    return;
  }
  setTimeout(task);
}
