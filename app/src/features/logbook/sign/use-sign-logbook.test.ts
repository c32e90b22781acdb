import { act, renderHook } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { takeConsoleErrors } from '@/testing/console';
import { getClient } from '../api/client';
import { untilNoSignInFlight } from './signs-in-flight';
import { useSignLogbook, type SignResult } from './use-sign-logbook';
import type { KeptEntry, NewEntry, SignOptions } from '../types';

vi.mock('../api/client', () => ({ getClient: vi.fn() }));

const KEY = '123e4567-e89b-42d3-a456-426614174000';
const OTHER_KEY = '123e4567-e89b-42d3-a456-426614174001';
const send = vi.fn<(entry: NewEntry, options?: SignOptions) => Promise<KeptEntry | undefined>>();

/** A failed sign as the client rejects it: the outcome and the key it was sent with. */
function failure(idempotencyKey: string): Error {
  return Object.assign(new Error('network failure'), {
    name: 'LogbookError',
    code: 'network_error',
    outcome: 'unknown',
    idempotencyKey,
  });
}

beforeEach(() => {
  send.mockReset();
  vi.mocked(getClient).mockReturnValue({ signLogbook: send } as unknown as ReturnType<typeof getClient>);
});

async function signWith(sign: (entry: NewEntry) => Promise<SignResult>, entry: NewEntry): Promise<boolean> {
  let stored = false;
  await act(async () => {
    const result = await sign(entry);
    stored = result.status === 'signed';
    if (result.status === 'signed') result.shown();
  });
  // Each failure is logged with the error it received; the calls' keys are what is checked here.
  for (const [label] of takeConsoleErrors()) expect(label).toBe('Error inserting log:');
  return stored;
}

describe('useSignLogbook', () => {
  it('keeps a stored sign in flight until the caller says the list shows it', async () => {
    send.mockResolvedValue(undefined);
    const { result } = renderHook(() => useSignLogbook());
    let signed: SignResult | undefined;
    await act(async () => {
      signed = await result.current.sign({ name: 'Ann', message: 'Found it' });
    });
    let free = false;
    void untilNoSignInFlight().then(() => (free = true));
    await Promise.resolve();
    expect(free).toBe(false);
    if (signed?.status !== 'signed') throw new Error(`not signed: ${signed?.status}`);
    signed.shown();
    await vi.waitFor(() => expect(free).toBe(true));
  });

  it('hands on the entry as the server stored it, or none when its answer held none', async () => {
    const stored: KeptEntry = { id: 7, created_at: '2024-05-01T10:00:00+00:00', name: 'Ann', message: 'Found it' };
    send.mockResolvedValueOnce(stored).mockResolvedValueOnce(undefined);
    const { result } = renderHook(() => useSignLogbook());
    for (const expected of [stored, undefined]) {
      let signed: SignResult | undefined;
      await act(async () => {
        signed = await result.current.sign({ name: 'Ann', message: 'Found it' });
      });
      if (signed?.status !== 'signed') throw new Error(`not signed: ${signed?.status}`);
      expect(signed.stored).toEqual(expected);
      signed.shown();
    }
  });

  it('signs the unchanged text again with the failed sign\'s key, so it is not doubled', async () => {
    send.mockRejectedValueOnce(failure(KEY)).mockRejectedValueOnce(failure(KEY)).mockResolvedValueOnce(undefined);
    const { result } = renderHook(() => useSignLogbook());
    const entry = { name: 'Ann', message: 'Found it' };
    expect(await signWith(result.current.sign, entry)).toBe(false);
    expect(await signWith(result.current.sign, { ...entry })).toBe(false);
    expect(await signWith(result.current.sign, { ...entry })).toBe(true);
    expect(send.mock.calls).toEqual([[entry], [entry, { idempotencyKey: KEY }], [entry, { idempotencyKey: KEY }]]);
  });

  it('gives a changed name or message a new key', async () => {
    send.mockRejectedValueOnce(failure(KEY)).mockRejectedValueOnce(failure(OTHER_KEY)).mockResolvedValue(undefined);
    const { result } = renderHook(() => useSignLogbook());
    await signWith(result.current.sign, { name: 'Ann', message: 'Found it' });
    await signWith(result.current.sign, { name: 'Ann', message: 'Found it!' });
    await signWith(result.current.sign, { name: 'Anne', message: 'Found it!' });
    expect(send.mock.calls).toEqual([
      [{ name: 'Ann', message: 'Found it' }],
      [{ name: 'Ann', message: 'Found it!' }],
      [{ name: 'Anne', message: 'Found it!' }],
    ]);
  });

  it('keeps the newest failed sign\'s key and forgets it after a success', async () => {
    send
      .mockRejectedValueOnce(failure(KEY))
      .mockRejectedValueOnce(failure(OTHER_KEY))
      .mockRejectedValueOnce(failure(OTHER_KEY))
      .mockResolvedValueOnce(undefined)
      .mockResolvedValueOnce(undefined);
    const { result } = renderHook(() => useSignLogbook());
    const first = { name: 'Ann', message: 'one' };
    const second = { name: 'Ann', message: 'two' };
    await signWith(result.current.sign, first);
    await signWith(result.current.sign, second);
    // The first text's key was replaced by the second's failure: signing it now is a new sign.
    await signWith(result.current.sign, first);
    expect(await signWith(result.current.sign, first)).toBe(true);
    // After a success the same text is signed anew, as a second entry on purpose.
    expect(await signWith(result.current.sign, first)).toBe(true);
    expect(send.mock.calls).toEqual([
      [first],
      [second],
      [first],
      [first, { idempotencyKey: OTHER_KEY }],
      [first],
    ]);
  });

  it('signs anew after a failure that carries no key', async () => {
    const configError = Object.assign(new Error('supabaseKey is required.'), { name: 'ConfigError', code: 'key_required' });
    send.mockRejectedValueOnce(configError).mockResolvedValueOnce(undefined);
    const { result } = renderHook(() => useSignLogbook());
    const entry = { name: 'Ann', message: 'Hi' };
    await signWith(result.current.sign, entry);
    await signWith(result.current.sign, entry);
    expect(send.mock.calls).toEqual([[entry], [entry]]);
  });
});
