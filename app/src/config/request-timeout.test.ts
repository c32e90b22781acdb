import { describe, expect, it } from 'vitest';
import { rustConstant } from '@/testing/rust-constant';
import requestTimeoutRs from '../../../core/src/client/request_timeout.rs?raw';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './request-timeout';

describe('the request timeout the page writes again', () => {
  // The service worker replays kept signs without the wasm client, with this default as its deadline.
  it('defaults as the client does', () => {
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(Number(rustConstant(requestTimeoutRs, 'DEFAULT_REQUEST_TIMEOUT_MS')));
  });
});
