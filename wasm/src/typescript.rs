//! The TypeScript types the exported functions name in their pinned signatures.

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** One logbook entry as the server stored it; `created_at` is the server's timestamp text. */
export interface LogEntry { id: number; created_at: string; name: string; message: string }

/** What a visitor signs with. */
export interface NewEntry { name: string; message: string }

/** Thrown by `createClient`: the messages are supabase-js's. */
export interface ConfigError extends Error {
  name: "ConfigError";
  code: "url_required" | "url_invalid_scheme" | "url_malformed" | "key_required";
}

/** A failed call. `code` is PostgREST's (e.g. "42501", "PGRST205") or a client-side code. */
export interface LogbookError extends Error {
  name: "LogbookError";
  code: "network_error" | "server_error" | "http_error" | "invalid_json" | "schema_mismatch" | (string & {});
  /** HTTP status; 0 when the request never got a response. */
  status: number;
  retryable: boolean;
  details: string | null;
  hint: string | null;
  /** Only for schema_mismatch: the offending entry (null when the body was not an array). */
  index?: number | null;
  field?: string | null;
  expected?: string;
  found?: string;
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

export type ClientError = ConfigError | LogbookError | ArgumentError | InternalError;
"#;
