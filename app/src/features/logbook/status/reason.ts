/** Why a sign was not stored, in plain words, from the client's error (its `code` and `status`). */
export function notSignedReason(error: unknown): string {
  const { code, status, name } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    status?: unknown;
    name?: unknown;
  };
  if (name === 'ConfigError') return 'the page is not set up to reach the logbook';
  if (code === 'invalid_argument') return 'the name or message could not be read';
  if (code === 'network_error') return 'there is no connection to the logbook, and this device cannot keep the sign';
  if (code === 'timeout') return 'the logbook did not answer in time, and this device cannot keep the sign';
  if (code === '42501' || status === 401 || status === 403) return 'the logbook does not accept signs from this page';
  if (code === '22P05') return 'the text holds a character the logbook cannot store';
  if (status === 429) return 'too many signs in a short time; please try again later';
  if (status === 413) return 'the text is too long for the logbook';
  if (typeof status === 'number' && status >= 500) return 'the logbook had an error; please try again';
  if (typeof status === 'number' && status >= 400) return 'the logbook refused it';
  return 'something went wrong';
}
