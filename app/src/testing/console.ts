import { afterEach, beforeEach, expect, vi, type MockInstance } from 'vitest';

let consoleError: MockInstance<typeof console.error> | undefined;

/** Installed by setup-tests.ts: every console.error is captured, and any left unclaimed fails the test. */
export function captureConsoleErrors(): void {
  beforeEach(() => {
    consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    const unclaimed = consoleError?.mock.calls ?? [];
    consoleError?.mockRestore();
    consoleError = undefined;
    if (unclaimed.length > 0) {
      throw new Error(`Unexpected console.error:\n${unclaimed.map(formatCall).join('\n')}`);
    }
  });
}

/**
 * Asserts that console.error has received exactly these calls since the last claim, then claims
 * them. Retry-safe, so it can sit inside waitFor().
 */
export function expectConsoleErrors(expected: readonly (readonly unknown[])[]): void {
  if (!consoleError) throw new Error('console.error is not being captured');
  expect(consoleError.mock.calls).toEqual(expected);
  // Same instances, not just equal ones: the page must log the very error it received.
  expected.forEach((args, call) =>
    args.forEach((arg, index) => expect(consoleError?.mock.calls[call]?.[index]).toBe(arg)),
  );
  consoleError.mockClear();
}

/**
 * Returns the console.error calls made since the last claim and claims them, for a test that must look
 * into an error it did not create (e.g. one a module loader wrapped).
 */
export function takeConsoleErrors(): unknown[][] {
  if (!consoleError) throw new Error('console.error is not being captured');
  const calls = [...consoleError.mock.calls];
  consoleError.mockClear();
  return calls;
}

function formatCall(args: readonly unknown[]): string {
  return args.map((arg) => (arg instanceof Error ? (arg.stack ?? String(arg)) : String(arg))).join(' ');
}
