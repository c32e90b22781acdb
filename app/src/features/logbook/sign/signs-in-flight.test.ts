import { describe, expect, it } from 'vitest';
import { beginSign, untilNoSignInFlight } from './signs-in-flight';

describe('signs in flight', () => {
  it('settles at once with none, and once the last one in flight has ended', async () => {
    await untilNoSignInFlight();
    const endFirst = beginSign();
    const endSecond = beginSign();
    let settled = false;
    const waiting = untilNoSignInFlight().then(() => (settled = true));
    endFirst();
    // Ending the same sign twice does not end another.
    endFirst();
    await Promise.resolve();
    expect(settled).toBe(false);
    endSecond();
    await waiting;
    expect(settled).toBe(true);
  });
});
