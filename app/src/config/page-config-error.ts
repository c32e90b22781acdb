// No imports from the page: app/build reads the same settings at build time, in Node.

/** The page's own configuration error: named and shaped as the client's ConfigError, and reported the same way. */
export interface PageConfigError extends Error {
  readonly name: 'ConfigError';
  readonly code: 'request_timeout_invalid' | 'key_conflict';
}

export function pageConfigError(code: PageConfigError['code'], message: string): PageConfigError {
  return Object.assign(new Error(message), { name: 'ConfigError', code } as const);
}
