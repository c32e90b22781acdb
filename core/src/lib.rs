//! Pure client logic for the geocache logbook.
//!
//! Everything here ends in plain values: a [`ClientConfig`] derived from (url, key) as supabase-js
//! derives it, a [`RequestTimeout`], [`HttpRequest`]s built by the PostgREST builder in [`rest`],
//! typed outcomes ([`LogbookError`], a validated [`EntryList`]) classified from a status and a
//! body text, when a read is retried and whether an ambiguous insert landed (decisions over
//! explicit outcomes), and the auth client's requests, sessions, errors and refresh timing in
//! [`auth`]. The wasm crate performs the I/O and owns the timers; nothing in this crate touches
//! the web.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod auth;
pub mod base_headers;
pub mod config;
pub mod entry;
pub mod entry_list;
pub mod http;
pub mod json_shape;
pub mod ordering;
pub mod outcome;
pub mod project_url;
pub mod request_timeout;
pub mod rest;
pub mod schema;
pub mod timestamp;

pub use config::{ClientConfig, ConfigError};
pub use entry::{Entry, NewEntry};
pub use entry_list::{EntryKey, EntryList, EntryRef};
pub use http::{HttpRequest, HttpResponse, Method};
pub use outcome::{LogbookError, NetworkFailure, NoResponse};
pub use request_timeout::{RequestTimeout, RequestTimeoutError};
pub use schema::SchemaError;
pub use timestamp::{Timestamp, TimestampError};

#[cfg(test)]
mod test_support;
