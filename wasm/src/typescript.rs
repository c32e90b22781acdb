//! The TypeScript types the exported functions name in their pinned signatures.

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Thrown by `createClient` (and `createRealtimeClient`): the messages are supabase-js's. */
export interface ConfigError extends Error {
  name: "ConfigError";
  code: "url_required" | "url_invalid_scheme" | "url_malformed" | "key_required";
}

/** Thrown when an argument cannot be read (e.g. `signLogbook` without string name and message). */
export interface ArgumentError extends TypeError {
  name: "TypeError";
  code: "invalid_argument";
}

/** A result could not be converted to JS: a bug in geocache-client. */
export interface InternalError extends Error {
  name: "InternalError";
  code: "internal_error";
}

"#;

#[cfg(feature = "rest")]
#[wasm_bindgen(typescript_custom_section)]
const REST_TYPES: &'static str = r#"
/** One logbook entry as the server stored it; `created_at` is the server's timestamp text. */
export interface LogEntry { id: number; created_at: string; name: string; message: string }

/** A removal or restore (or import) any device may learn of: `listChanges`. */
export interface LogChange { seq: number; entryId: number; change: "removed" | "added" }

/** A removed entry as the owner lists it: `removedEntries`. */
export interface RemovedEntry { id: number; created_at: string; name: string; message: string; removed_at: string }

/** What a visitor signs with. */
export interface NewEntry { name: string; message: string }

/** The third argument of `createClient`; other supabase-js options are accepted and ignored. */
export interface ClientOptions {
  /**
   * How long one request (REST or auth) may take, headers and body, before it is aborted: a
   * whole number of milliseconds from 1 to 2147483647 (default 30000). Anything else throws a
   * TypeError with `code: "invalid_argument"`. A read that runs out of time is retried like a
   * network error; a call that gives up on one fails with `code: "timeout"`.
   */
  requestTimeoutMs?: number;
}

/** The argument of `listEntries`. */
export interface ListOptions {
  /**
   * Called after each page with every entry read so far, newest first (one EntryList handle per
   * call; the caller frees the ones it no longer shows). The last call's list equals the resolved
   * one. An exception it throws is reported with console.error and does not stop the read.
   */
  onPage?: (entriesSoFar: EntryList) => void;
  /**
   * Only the entries created at or after this timestamp (e.g. `2024-05-01T10:00:00+00:00`), in
   * the same order and pages: `created_at=gte.<since>`. Not a timestamp: a TypeError with
   * `code: "invalid_argument"`.
   */
  since?: string;
}

/** `signRequest`'s answer: the insert as plain data, to send later with `fetch`. */
export interface PlainRequest {
  method: string;
  url: string;
  /** Names in lower case: `apikey`, `authorization`, `idempotency-key`, … */
  headers: Record<string, string>;
  body: string | null;
}

/** The second argument of `signLogbook`. */
export interface SignOptions {
  /**
   * The sign's key, a UUID (8-4-4-4-12 hexadecimal digits, either case): the `idempotencyKey` of
   * an earlier failed attempt of the same sign, so it is stored at most once. Without it each
   * call makes a new random key. A malformed key throws a TypeError with
   * `code: "invalid_argument"`.
   */
  idempotencyKey?: string;
}

/**
 * A failed call. `code` is PostgREST's (e.g. "42501", "PGRST205") or a client-side code:
 * "timeout" when the request was aborted after `requestTimeoutMs`.
 */
export interface LogbookError extends Error {
  name: "LogbookError";
  code: "network_error" | "timeout" | "server_error" | "http_error" | "invalid_json" | "schema_mismatch" | "invalid_content_range" | (string & {});
  /** HTTP status; 0 when the request never got a (whole) response. */
  status: number;
  /** Whether sending the same request again may succeed: network failures, timeouts, 5xx. */
  retryable: boolean;
  details: string | null;
  hint: string | null;
  /** Only for schema_mismatch: the offending entry (null when the body was not an array). */
  index?: number | null;
  field?: string | null;
  expected?: string;
  found?: string;
  /** `listEntries` only: the page (from 1) that failed; the message starts with `page <n>: `. */
  page?: number;
  /**
   * `signLogbook` only: whether the entry may be in the table despite the failure. "not_stored":
   * every attempt was refused, nothing was stored; "unknown": some attempt went unanswered or
   * ended in a 5xx, so it may have been.
   */
  outcome?: "not_stored" | "unknown";
  /**
   * `signLogbook` only: the sign's idempotency key. Signing again with it
   * (`signLogbook(entry, { idempotencyKey })`) stores the entry at most once in all.
   */
  idempotencyKey?: string;
}

export type ClientError = ConfigError | LogbookError | ArgumentError | InternalError;
"#;

/// Without the logbook client nothing fails with a `LogbookError`.
#[cfg(not(feature = "rest"))]
#[wasm_bindgen(typescript_custom_section)]
const CLIENT_ERROR_TYPE: &'static str = r#"
export type ClientError = ConfigError | ArgumentError | InternalError;
"#;

#[cfg(feature = "auth")]
#[wasm_bindgen(typescript_custom_section)]
const AUTH_TYPES: &'static str = r#"
/** The auth client's options (merged with `ClientOptions` above). */
export interface ClientOptions {
  auth?: {
    /** Refresh the session in the background while the page is visible (default true). */
    autoRefreshToken?: boolean;
    /** Keep the session in localStorage (default true); false keeps it in memory only. */
    persistSession?: boolean;
    /** Where the session is stored (default `sb-<first host label>-auth-token`, as supabase-js). */
    storageKey?: string;
    /**
     * TEST-ONLY: the auto-refresh tick in milliseconds (default 30000). The refresh threshold
     * (3 ticks), the read margin (3 ticks), the failure cooldown (2 ticks) and the retry window
     * (1 tick) scale with it. Do not set it in production.
     */
    autoRefreshTickMs?: number;
  };
}

/** A failed auth call, as auth-js's error classes (`isAuthError(e)` from supabase-js accepts it). */
export interface AuthError extends Error {
  name:
    | "AuthApiError"
    | "AuthRetryableFetchError"
    | "AuthWeakPasswordError"
    | "AuthSessionMissingError"
    | "AuthInvalidTokenResponseError"
    | "AuthUnknownError"
    | "AuthInvalidJwtError"
    | "AuthInvalidCredentialsError"
    | "AuthRefreshDiscardedError";
  /** HTTP status (0 when fetch failed); undefined for AuthUnknownError. */
  status: number | undefined;
  /**
   * The server's error code, e.g. "mfa_verification_failed", "invalid_credentials"; "timeout"
   * for an AuthRetryableFetchError whose request was aborted after `requestTimeoutMs`.
   */
  code: "mfa_verification_failed" | "mfa_challenge_expired" | "mfa_factor_not_found" | "invalid_credentials"
    | "weak_password" | "invalid_jwt" | "timeout" | (string & {}) | undefined;
  /** True only for AuthRetryableFetchError (network failure, timeout, 500-504, 520-530). */
  retryable: boolean;
  __isAuthError: true;
  /** AuthWeakPasswordError only: "length", "characters", "pwned". */
  reasons?: string[];
}

export type AuthChangeEvent =
  | "INITIAL_SESSION"
  | "SIGNED_IN"
  | "SIGNED_OUT"
  | "TOKEN_REFRESHED"
  | "MFA_CHALLENGE_VERIFIED";

/** Called synchronously per event; a returned promise is not awaited. */
export type AuthStateChangeCallback = (event: AuthChangeEvent, session: Session | null) => void | Promise<void>;

export type FactorType = "totp" | "phone" | "webauthn";

export interface Factor {
  id: string;
  friendly_name?: string;
  factor_type: FactorType | (string & {});
  status: "verified" | "unverified" | (string & {});
  created_at: string;
  updated_at: string;
  phone?: string;
  last_challenged_at: string | null;
  [key: string]: unknown;
}

export interface User {
  id: string;
  aud: string;
  role?: string;
  email?: string;
  phone?: string;
  email_confirmed_at?: string;
  phone_confirmed_at?: string;
  confirmation_sent_at?: string;
  confirmed_at?: string;
  last_sign_in_at?: string;
  app_metadata: { provider?: string; providers?: string[]; [key: string]: unknown };
  user_metadata: { [key: string]: unknown };
  factors?: Factor[];
  identities?: unknown[];
  created_at: string;
  updated_at?: string;
  is_anonymous?: boolean;
  [key: string]: unknown;
}

export interface Session {
  access_token: string;
  token_type: string;
  /** Seconds the access token lived for when issued. */
  expires_in: number;
  /** Unix seconds at which the access token expires. */
  expires_at: number;
  refresh_token: string;
  user: User;
  provider_token?: string;
  provider_refresh_token?: string;
  [key: string]: unknown;
}

export interface WeakPassword { reasons: string[]; message: string }

export interface SignUpWithPasswordCredentials {
  email?: string;
  phone?: string;
  password: string;
  options?: { emailRedirectTo?: string; data?: object; captchaToken?: string; channel?: "sms" | "whatsapp" };
}

export interface SignInWithPasswordCredentials {
  email?: string;
  phone?: string;
  password: string;
  options?: { captchaToken?: string };
}

export interface SignOutOptions { scope?: "global" | "local" | "others" }

export type AuthResult<T, E = null> = { data: T; error: null } | { data: E; error: AuthError };

export type AuthResponse = AuthResult<
  { user: User | null; session: Session | null },
  { user: null; session: null }
>;
export type AuthTokenResponsePassword = AuthResult<
  { user: User; session: Session; weakPassword?: WeakPassword },
  { user: null; session: null }
>;
export type AuthSessionResponse = AuthResult<{ session: Session | null }, { session: null }>;
export type UserResponse = AuthResult<{ user: User }, { user: null }>;

export type MFAEnrollParams =
  | { factorType: "totp"; friendlyName?: string; issuer?: string }
  | { factorType: "phone"; friendlyName?: string; phone: string };
export interface MFAUnenrollParams { factorId: string }
export interface MFAChallengeParams { factorId: string; channel?: "sms" | "whatsapp" }
export interface MFAVerifyParams { factorId: string; challengeId: string; code: string }
export interface MFAChallengeAndVerifyParams { factorId: string; code: string }

export type AuthMFAEnrollResponse = AuthResult<
  | {
      id: string;
      type: "totp";
      friendly_name?: string;
      /** `qr_code` is a `data:image/svg+xml;utf-8,<svg…>` URL. */
      totp: { qr_code: string; secret: string; uri: string };
    }
  | { id: string; type: "phone"; friendly_name?: string; phone: string }
>;
export type AuthMFAUnenrollResponse = AuthResult<{ id: string }>;
export type AuthMFAChallengeResponse = AuthResult<{ id: string; type: "totp" | "phone"; expires_at: number }>;
/** The server's token response; the client saves it as the new (aal2) session. */
export type AuthMFAVerifyResponse = AuthResult<{
  access_token: string;
  token_type: string;
  expires_in: number;
  expires_at?: number;
  refresh_token: string;
  user: User;
}>;
export type AuthMFAListFactorsResponse = AuthResult<{ all: Factor[]; totp: Factor[]; phone: Factor[]; webauthn: Factor[] }>;
export interface AMREntry { method: string; timestamp: number }
export type AuthMFAGetAuthenticatorAssuranceLevelResponse = AuthResult<{
  currentLevel: "aal1" | "aal2" | (string & {}) | null;
  nextLevel: "aal1" | "aal2" | (string & {}) | null;
  currentAuthenticationMethods: AMREntry[];
}>;
"#;

#[cfg(feature = "functions")]
#[wasm_bindgen(typescript_custom_section)]
const FUNCTIONS_TYPES: &'static str = r#"
/** `client.functions.invoke`'s options, as supabase-js's. */
export interface FunctionInvokeOptions {
  /**
   * A string (`text/plain`), Blob or File or ArrayBuffer (`application/octet-stream`), FormData
   * (multipart), or anything else, sent as JSON. A header of `headers` names another type.
   */
  body?: string | Blob | ArrayBuffer | FormData | Record<string, unknown> | unknown[] | number | boolean | null;
  /** Sent as they are, over the client's own (`apikey`, `authorization`) and the defaults. */
  headers?: Record<string, string>;
  /** Default "POST". */
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** A region other than "any" pins the call there (`x-region`, `?forceFunctionRegion=`). */
  region?: string;
  signal?: AbortSignal;
  /**
   * Aborts the call (the request and reading the body) after this many milliseconds: a whole
   * number from 1 to 2147483647; none by default. It ends as a FunctionsFetchError whose
   * context is the AbortError.
   */
  timeout?: number;
}

/** The function answered with a status outside 2xx; `context` is its Response. */
export interface FunctionsHttpError extends Error {
  name: "FunctionsHttpError";
  code: "functions_http_error";
  context: Response;
  status: number;
}

/** The platform in front of the function failed (`x-relay-error: true`); `context` is the Response. */
export interface FunctionsRelayError extends Error {
  name: "FunctionsRelayError";
  code: "functions_relay_error";
  context: Response;
  status: number;
}

/** The request could not be sent or got no response; `context` is what fetch threw. */
export interface FunctionsFetchError extends Error {
  name: "FunctionsFetchError";
  code: "functions_fetch_error";
  context: unknown;
}

/**
 * `invoke`'s result. `data` is the body read by its Content-Type: parsed JSON, a Blob
 * (octet-stream, PDF), the Response itself (event-stream), FormData (multipart) or text. A body
 * that cannot be read so (JSON that does not parse) is the `error`, with no `response`.
 */
export type FunctionsResponse<T = any> =
  | { data: T; error: null; response: Response }
  | { data: null; error: FunctionsHttpError | FunctionsRelayError; response: Response }
  | { data: null; error: FunctionsFetchError | Error; response: undefined };
"#;

#[cfg(feature = "realtime")]
#[wasm_bindgen(typescript_custom_section)]
const REALTIME_TYPES: &'static str = r#"
/** The second argument of `client.channel(name, options)`. */
export interface RealtimeChannelOptions {
  config?: {
    /** `self`: receive one's own broadcasts; `ack`: `send` waits for the server's acknowledgement. */
    broadcast?: { self?: boolean; ack?: boolean };
    presence?: { key?: string };
  };
}

export type RealtimeListenType = "postgres_changes" | "broadcast" | "system";

/** `on('postgres_changes', filter, …)`: `filter` as Realtime parses it, e.g. `id=eq.3`. */
export interface RealtimePostgresChangesFilter {
  event: "*" | "INSERT" | "UPDATE" | "DELETE";
  schema: string;
  table?: string;
  filter?: string;
}

/** `on('broadcast', { event }, …)`: one event name, or `*` for all. */
export interface RealtimeBroadcastFilter { event: string }

export type RealtimeFilter = RealtimePostgresChangesFilter | RealtimeBroadcastFilter | Record<string, never>;

/** What a postgres_changes listener receives; values typed by column (bool, numbers, json). */
export interface RealtimePostgresChangesPayload<T extends Record<string, unknown> = Record<string, unknown>> {
  schema: string;
  table: string;
  commit_timestamp: string;
  eventType: "INSERT" | "UPDATE" | "DELETE";
  /** The row (INSERT, UPDATE); `{}` for DELETE. */
  new: Partial<T>;
  /** The old row (UPDATE, DELETE: only the primary key unless the table's replica identity is full); `{}` for INSERT. */
  old: Partial<T>;
  errors: string[] | null;
}

/** What a broadcast listener receives. */
export interface RealtimeBroadcastPayload<P = any> {
  type: "broadcast";
  event: string;
  payload: P;
  meta?: unknown;
}

/** `channel.send`'s argument. */
export interface RealtimeBroadcastMessage { type: "broadcast"; event: string; payload?: unknown }

export type RealtimeSubscribeStatus = "SUBSCRIBED" | "TIMED_OUT" | "CLOSED" | "CHANNEL_ERROR";

/** `err` is set for CHANNEL_ERROR when the server refused the join or its postgres_changes did not match. */
export type RealtimeSubscribeCallback = (status: RealtimeSubscribeStatus, err?: RealtimeError) => void;

export type RealtimeSendResult = "ok" | "timed out" | "error";

/** A refused realtime call, or the reason of a CHANNEL_ERROR. */
export interface RealtimeError extends Error {
  name: "RealtimeError";
  code: "channel_error" | "already_subscribed" | "unknown_channel" | "field_too_long" | (string & {});
}

/** Typed listeners, as supabase-js's overloads. */
export interface RealtimeChannel {
  on<T extends Record<string, unknown> = Record<string, unknown>>(
    type: "postgres_changes",
    filter: RealtimePostgresChangesFilter,
    callback: (payload: RealtimePostgresChangesPayload<T>) => void,
  ): RealtimeChannel;
  on<P = any>(
    type: "broadcast",
    filter: RealtimeBroadcastFilter,
    callback: (payload: RealtimeBroadcastPayload<P>) => void,
  ): RealtimeChannel;
  on(
    type: "system",
    filter: Record<string, never>,
    callback: (payload: { extension?: string; status?: string; message?: string; channel?: string; [key: string]: unknown }) => void,
  ): RealtimeChannel;
}
"#;
