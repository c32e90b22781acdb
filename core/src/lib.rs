//! Pure client logic for the geocache logbook. Everything here ends in plain values: the wasm crate
//! performs the I/O and owns the timers, and nothing in this crate touches the web.
//!
//! - [`client`]: what every service's client is built on: a [`ClientConfig`] derived from (url,
//!   key) as supabase-js derives it, the headers every request starts with, the plain
//!   [`HttpRequest`] and [`HttpResponse`], a [`RequestTimeout`] and the [`UnixTime`] decisions are
//!   taken at.
//! - [`logbook`]: the logbook's data: its entries, validated once into an [`EntryList`] (newest
//!   first), and the one classification of a call's answer into a body or a [`LogbookError`].
//! - One module per Supabase service: [`rest`] (the PostgREST builder, the logbook's reads and
//!   signs, when a read is sent again and whether an ambiguous insert landed), [`auth`] (requests,
//!   sessions, errors, refresh timing and MFA), [`realtime`] (the protocol and its timing),
//!   [`storage`] and [`functions`].
//!
//! The types every layer names are re-exported here; everything else is reached through its module.
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
pub mod client;
pub mod functions;
pub mod logbook;
pub mod realtime;
pub mod rest;
pub mod storage;

pub use client::config::{ClientConfig, ConfigError};
pub use client::http::{HttpRequest, HttpResponse, Method, NetworkFailure, NoResponse};
pub use client::request_timeout::{RequestTimeout, RequestTimeoutError};
pub use client::unix_time::UnixTime;
pub use logbook::entry::{Entry, NewEntry};
pub use logbook::entry_list::{EntryKey, EntryList, EntryRef};
pub use logbook::outcome::LogbookError;
pub use logbook::schema::SchemaError;
pub use logbook::timestamp::{Timestamp, TimestampError};
