import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The live client's code is what a sign in flight holds back; the logbook client's code has loaded already.
const loadLiveCode = vi.fn();
vi.mock('./live-code', () => ({ loadLiveCode, loadedLiveCode: () => undefined }));
vi.mock('./client-code', () => ({ loadClientCode: () => Promise.resolve({}) }));

/** Lets every promise chain queued so far run to its end. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 10; turn += 1) await Promise.resolve();
}

describe('the live channel', () => {
  beforeEach(() => {
    vi.resetModules();
    // Never settles: the test asks only when it is asked for.
    loadLiveCode.mockReset().mockReturnValue(new Promise(() => undefined));
  });
  afterEach(() => vi.restoreAllMocks());

  it('loads the live client at once when no sign is in flight', async () => {
    const { liveChannel } = await import('./live-channel');
    const stop = liveChannel.listen({ onEntry: () => undefined, onStatus: () => undefined });
    await settle();
    expect(loadLiveCode).toHaveBeenCalledTimes(1);
    stop();
  });

  it('waits for a sign in flight to end before loading the live client', async () => {
    const { beginSign } = await import('../sign/signs-in-flight');
    const { liveChannel } = await import('./live-channel');
    const endSign = beginSign();
    const stop = liveChannel.listen({ onEntry: () => undefined, onStatus: () => undefined });
    await settle();
    expect(loadLiveCode).not.toHaveBeenCalled();

    endSign();
    await settle();
    expect(loadLiveCode).toHaveBeenCalledTimes(1);
    stop();
  });
});
