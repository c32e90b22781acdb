//! Pure client logic for the geocache logbook.
//!
//! Everything here ends in plain values: a [`ClientConfig`] derived from (url, key) as supabase-js
//! derives it, a [`RequestTimeout`], [`HttpRequest`]s built by the PostgREST builder in [`rest`],
//! typed outcomes ([`LogbookError`], a validated [`EntryList`]) classified from a status and a
//! body text, when a read is retried and whether an ambiguous insert landed (decisions over
//! explicit outcomes), the auth client's requests, sessions, errors and refresh timing in
//! [`auth`], and the Realtime protocol with its timing in [`realtime`]. The wasm crate performs
//! the I/O and owns the timers; nothing in this crate touches the web.
//!
//! A list request, built from a project URL and key:
//!
//! ```
//! use geocache_core::rest::logbook::list_entries_request;
//! use geocache_core::{ClientConfig, Method};
//!
//! let config = ClientConfig::new("https://abc.supabase.co", "sb_publishable_key")?;
//! let request = list_entries_request(&config, None);
//! assert_eq!(request.method, Method::Get);
//! assert_eq!(
//!     request.url,
//!     "https://abc.supabase.co/rest/v1/geocache_logs?select=*&order=created_at.desc"
//! );
//! assert_eq!(request.header("apikey"), Some("sb_publishable_key"));
//! assert_eq!(request.header("accept-profile"), Some("public"));
//! # Ok::<(), geocache_core::ConfigError>(())
//! ```
//!
//! The response body, validated once and ordered newest first:
//!
//! ```
//! use geocache_core::{EntryList, SchemaError};
//!
//! let body = r#"[
//!     {"id": 1, "created_at": "2026-05-01T10:00:00+00:00", "name": "Ada", "message": "Found it"},
//!     {"id": 2, "created_at": "2026-05-02T09:30:00+00:00", "name": "Bo", "message": "TFTC"}
//! ]"#;
//! let entries = EntryList::parse(body.to_owned())?;
//! assert_eq!(entries.len(), 2);
//! assert_eq!(entries.get(0).map(|entry| entry.name), Some("Bo"));
//!
//! let error = EntryList::parse(r#"[{"id": 1}]"#.to_owned()).unwrap_err();
//! assert_eq!(error.code(), "schema_mismatch");
//! assert_eq!(error.index(), Some(0));
//! # Ok::<(), SchemaError>(())
//! ```
//!
//! Bad configuration is refused with supabase-js's messages and a stable code:
//!
//! ```
//! use geocache_core::{ClientConfig, ConfigError};
//!
//! let error = ClientConfig::new("ftp://abc.supabase.co", "key").unwrap_err();
//! assert_eq!(error.code(), "url_invalid_scheme");
//! assert_eq!(error.to_string(), "Invalid supabaseUrl: Must be a valid HTTP or HTTPS URL.");
//! assert_eq!(ClientConfig::new("https://abc.supabase.co", ""), Err(ConfigError::KeyRequired));
//! ```
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod auth;
pub mod base_headers;
pub mod config;
pub mod entry;
pub mod entry_list;
pub mod functions;
pub mod http;
pub mod json_shape;
pub mod ordering;
pub mod outcome;
pub mod project_url;
pub mod realtime;
pub mod request_timeout;
pub mod rest;
pub mod schema;
pub mod storage;
pub mod timestamp;
pub mod unix_time;

pub use config::{ClientConfig, ConfigError};
pub use entry::{Entry, NewEntry};
pub use entry_list::{EntryKey, EntryList, EntryRef};
pub use http::{HttpRequest, HttpResponse, Method, NetworkFailure, NoResponse};
pub use outcome::LogbookError;
pub use request_timeout::{RequestTimeout, RequestTimeoutError};
pub use schema::SchemaError;
pub use timestamp::{Timestamp, TimestampError};
pub use unix_time::UnixTime;

#[cfg(test)]
mod test_support;
