import { afterEach, describe, expect, it, vi } from 'vitest';
import { IDLE_DEADLINE_MS, whenIdle } from './when-idle';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('whenIdle', () => {
  it('waits for an idle moment, at most the deadline', () => {
    const requestIdleCallback = vi.fn();
    vi.stubGlobal('requestIdleCallback', requestIdleCallback);
    const task = vi.fn();
    whenIdle(task);
    expect(task).not.toHaveBeenCalled();
    expect(requestIdleCallback).toHaveBeenCalledWith(task, { timeout: IDLE_DEADLINE_MS });
  });

  it('without requestIdleCallback, runs after the next frame', () => {
    vi.useFakeTimers();
    vi.stubGlobal('requestIdleCallback', undefined);
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (frame: FrameRequestCallback) => frames.push(frame));
    const task = vi.fn();
    whenIdle(task);
    vi.runAllTimers();
    expect(task).not.toHaveBeenCalled();
    frames.forEach((frame) => frame(0));
    expect(task).not.toHaveBeenCalled();
    vi.runAllTimers();
    expect(task).toHaveBeenCalledTimes(1);
  });

  it('without either, runs in a later task', () => {
    vi.useFakeTimers();
    vi.stubGlobal('requestIdleCallback', undefined);
    vi.stubGlobal('requestAnimationFrame', undefined);
    const task = vi.fn();
    whenIdle(task);
    expect(task).not.toHaveBeenCalled();
    vi.runAllTimers();
    expect(task).toHaveBeenCalledTimes(1);
  });
});
