//! wasm-bindgen bindings for the geocache logbook client.
//!
//! A thin layer over `geocache-core`: [`client`] exports `createClient` and the `Client` class,
//! [`entry_list`] the `EntryList` its `listEntries` resolves to (the entries stay in wasm memory
//! and are read by index), [`auth`] its `client.auth` (sessions, auto-refresh, MFA), [`transport`]
//! sends the core's plain requests (realtime's broadcasts over HTTP too) with gloo-net under the
//! client's deadline and retries reads (`timer` holds the two timers that takes), [`error`] turns every core error into a real JS
//! `Error`, `config` and `options` read `createClient`'s arguments, [`js`] moves plain data
//! across the boundary, and [`realtime`] is `client.channel(...)`: Supabase Realtime over a
//! WebSocket. [`realtime_client`] exports the same channels without the logbook client:
//! `createRealtimeClient` and its `RealtimeClient`, as realtime-js has them.
//!
//! [`storage`] is its `client.storage` (buckets and objects) and [`functions`] its
//! `client.functions` (Edge Functions).
//!
//! Features: `rest` (`createClient`, the logbook's reads and signs), `auth` (`client.auth` and
//! `createClient`'s `auth` options), `storage` (`client.storage`), `functions`
//! (`client.functions`) and `realtime` (`createRealtimeClient`, and with `rest` `client.channel`
//! and friends), the default (npm) build; `bench` (`parseEntriesForBenchmark`) and
//! `console_error_panic_hook` on request. The logbook page loads two builds (see
//! scripts/build-wasm.sh): `rest` only for its first entries and signs (wasm/pkg-logbook: it
//! signs nobody in and stores no files), and `realtime` only for the live entries, loaded once
//! the first entries are painted (wasm/pkg-live).
#![cfg_attr(test, allow(clippy::unwrap_used))]

#[cfg(feature = "auth")]
pub mod auth;
#[cfg(feature = "rest")]
pub mod client;
mod config;
#[cfg(feature = "rest")]
pub mod entry_list;
pub mod error;
#[cfg(feature = "functions")]
pub mod functions;
#[cfg(feature = "auth")]
pub mod js;
#[cfg(feature = "rest")]
mod options;
#[cfg(feature = "realtime")]
pub mod realtime;
#[cfg(all(feature = "rest", feature = "realtime"))]
mod realtime_api;
#[cfg(feature = "realtime")]
pub mod realtime_client;
#[cfg(feature = "rest")]
mod sign_options;
#[cfg(feature = "storage")]
pub mod storage;
pub mod timer;
mod token_source;
#[cfg(any(feature = "rest", feature = "realtime"))]
pub mod transport;
mod typescript;

#[cfg(feature = "auth")]
pub use auth::{Auth, Mfa, Subscription};
#[cfg(feature = "rest")]
pub use client::{create_client, Client};
#[cfg(feature = "rest")]
pub use entry_list::EntryList;
pub use error::ClientError;
#[cfg(feature = "functions")]
pub use functions::Functions;
#[cfg(feature = "realtime")]
pub use realtime::RealtimeChannel;
#[cfg(feature = "realtime")]
pub use realtime_client::{create_realtime_client, RealtimeClient};
#[cfg(feature = "storage")]
pub use storage::{StorageClient, StorageFileApi};

/// Runs when the module is instantiated (not exported): Rust panics then reach `console.error`
/// with their message. In the browser tests wasm-bindgen-test installs its own hook afterwards.
#[cfg(feature = "console_error_panic_hook")]
#[wasm_bindgen::prelude::wasm_bindgen(start, private)]
fn start() {
    console_error_panic_hook::set_once();
}
