// No imports from the page: app/build/production-page.ts reads the same setting at build time, in Node.
import { pageConfigError, type PageConfigError } from './page-config-error';

export type { PageConfigError };

/** The configuration variable, as the page reads it (`REQUEST_TIMEOUT_MS` for npm start and npm run preview). */
export const REQUEST_TIMEOUT_VARIABLE = 'VITE_REQUEST_TIMEOUT_MS';

/** The client's deadline when none is set: core's DEFAULT_REQUEST_TIMEOUT_MS (request-timeout.test.ts compares them). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * The longest delay browsers' timers keep (2^31 - 1 ms, about 24.8 days): a longer one overflows and fires at
 * once, so every request would time out immediately.
 */
export const MAX_REQUEST_TIMEOUT_MS = 2_147_483_647;

export type RequestTimeoutSetting =
  /** `ms` undefined: not set, the client's default applies. */
  | { readonly ok: true; readonly ms: number | undefined }
  | { readonly ok: false; readonly error: PageConfigError };

/**
 * Reads VITE_REQUEST_TIMEOUT_MS: unset or empty means the client's default; otherwise it must be written as a
 * whole number of milliseconds from 1 to MAX_REQUEST_TIMEOUT_MS, digits only ("30000"; not "30s", "3e4", " 30000"
 * or "030000"), so a typo is reported instead of read as something else.
 */
export function readRequestTimeout(value: unknown): RequestTimeoutSetting {
  if (value === undefined || value === '') return { ok: true, ms: undefined };
  const ms = typeof value === 'string' && /^[1-9][0-9]*$/.test(value) ? Number(value) : NaN;
  if (ms <= MAX_REQUEST_TIMEOUT_MS) return { ok: true, ms };
  const message =
    `${REQUEST_TIMEOUT_VARIABLE} must be a whole number of milliseconds from 1 to ${MAX_REQUEST_TIMEOUT_MS}, ` +
    `e.g. 30000 (got ${typeof value === 'string' ? JSON.stringify(value) : `a ${typeof value}`}).`;
  return { ok: false, error: pageConfigError('request_timeout_invalid', message) };
}
