/** An error as the client gives it: a real Error with the server's (or the client's) code and HTTP status. */
interface CodedError {
  readonly code?: unknown;
  readonly status?: unknown;
  readonly retryable?: unknown;
  readonly message?: unknown;
}

/** What went wrong, in words the owner can act on; `doing` names the step ("Signing in"). */
export function errorWords(error: unknown, doing: string): string {
  const { code, status, retryable, message } = (typeof error === 'object' && error !== null ? error : {}) as CodedError;
  if (code === 'invalid_credentials') return 'Wrong e-mail or password.';
  if (code === 'mfa_verification_failed') return 'That code is not right: enter the code your authenticator app shows now.';
  if (code === 'mfa_challenge_expired') return 'That code came too late: enter the code your authenticator app shows now.';
  if (status === 429 || code === 'over_request_rate_limit' || code === 'over_email_send_rate_limit')
    return `${doing} failed: too many attempts. Wait a minute, then try again.`;
  if (status === 0 || code === 'network_error' || code === 'timeout' || retryable === true)
    return `${doing} failed: the server could not be reached. Check the connection, then try again.`;
  const said = typeof message === 'string' && message !== '' ? ` (${message})` : '';
  return `${doing} failed${said}.`;
}

/** Whether `error` is the server refusing the caller (not an owner, or not at AAL2): PostgREST's 42501. */
export function isRefusal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as CodedError).code === '42501';
}

/** Whether `error` says the session is gone or no longer valid (expired, signed out elsewhere, tampered with). */
export function isSessionLost(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, status } = error as CodedError;
  return status === 401 || code === 'PGRST301' || code === 'PGRST303' || code === 'invalid_jwt' || code === 'session_not_found';
}
