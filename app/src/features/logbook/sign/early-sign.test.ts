import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EARLY_SIGNS_PROPERTY, leaveEarlySigns, type EarlySign, type EarlySigns } from './early-sign-handle';

// The client's code arrives when a test says so.
const client = vi.hoisted(() => ({
  arrive: undefined as (() => void) | undefined,
  signLogbook: vi.fn<(entry: unknown, options?: unknown) => Promise<void>>(),
}));
vi.mock('../api/client-code', () => ({
  loadClientCode: () => new Promise<void>((resolve) => (client.arrive = resolve)),
}));
vi.mock('../api/sign-logbook', () => ({ signLogbook: client.signLogbook }));

const SIGN: EarlySign = { name: 'Ann', message: 'Hi', idempotencyKey: '0f8fad5b-d9cb-469f-a165-70867728950e' };

/** The module afresh (it holds the page's one early sign), and the inline script's signs with one pressed. */
async function pressed(): Promise<{ module: typeof import('./early-sign'); flight: typeof import('./signs-in-flight'); signs: EarlySigns }> {
  vi.resetModules();
  const signs: EarlySigns = { pending: SIGN, onPress: undefined };
  leaveEarlySigns(window, signs);
  return { module: await import('./early-sign'), flight: await import('./signs-in-flight'), signs };
}

/** Lets the promise callbacks queued so far run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => {
  client.signLogbook.mockReset();
});
afterEach(() => {
  delete (window as unknown as Record<string, unknown>)[EARLY_SIGNS_PROPERTY];
  vi.unstubAllGlobals();
});

describe('a sign pressed before the page\'s scripts took the form over', () => {
  it('is sent once, with its key, the moment the client has loaded, and is in flight until it is stored', async () => {
    const { module, flight } = await pressed();
    let store!: () => void;
    client.signLogbook.mockReturnValue(new Promise((resolve) => (store = resolve)));
    module.sendEarlySigns(window);
    let idle = false;
    void flight.untilNoSignInFlight().then(() => (idle = true));
    client.arrive?.();
    await settle();
    expect(client.signLogbook.mock.calls).toEqual([[{ name: 'Ann', message: 'Hi' }, { idempotencyKey: SIGN.idempotencyKey }]]);
    expect(idle).toBe(false);
    // The logbook takes it over with the insert sent for it, once.
    const taken = module.takeEarlySign(window);
    expect(taken?.sign).toBe(SIGN);
    expect(taken?.sent).toBeInstanceOf(Promise);
    expect(module.takeEarlySign(window)).toBeUndefined();
    store();
    await settle();
    expect(idle).toBe(true);
  });

  it('is left to the logbook when it takes the form over before the client has loaded, or while offline', async () => {
    const first = await pressed();
    first.module.sendEarlySigns(window);
    expect(first.module.takeEarlySign(window)).toEqual({ sign: SIGN, sent: undefined });
    client.arrive?.();
    await settle();

    vi.stubGlobal('navigator', { onLine: false });
    const offline = await pressed();
    offline.module.sendEarlySigns(window);
    client.arrive?.();
    await settle();
    await offline.flight.untilNoSignInFlight();
    expect(offline.module.takeEarlySign(window)).toEqual({ sign: SIGN, sent: undefined });
    expect(client.signLogbook).not.toHaveBeenCalled();
  });

  it('is taken up when pressed after the page\'s scripts have started', async () => {
    const { module, signs } = await pressed();
    signs.pending = undefined;
    client.signLogbook.mockResolvedValue(undefined);
    module.sendEarlySigns(window);
    signs.pending = SIGN;
    signs.onPress?.();
    client.arrive?.();
    await settle();
    expect(client.signLogbook).toHaveBeenCalledOnce();
  });
});
