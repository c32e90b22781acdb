import { RESENDABLE_STATUSES } from './deliver';

/**
 * Whether a failed sign could not reach the server (so it belongs in the outbox): its outcome is unknown and the
 * last attempt was a network failure, a timeout, or a resendable status still failing after the client's resends.
 * A refusal (4xx) or a 500 is final and is not queued.
 */
export function couldNotReachServer(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { outcome, code, status } = error as { outcome?: unknown; code?: unknown; status?: unknown };
  if (outcome !== 'unknown') return false;
  if (code === 'network_error' || code === 'timeout') return true;
  return typeof status === 'number' && RESENDABLE_STATUSES.includes(status);
}
