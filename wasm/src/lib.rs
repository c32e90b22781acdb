//! wasm-bindgen bindings for the geocache logbook client.
//!
//! A thin layer over `geocache-core`: [`client`] exports `createClient` and the `Client` class,
//! [`entry_list`] the `EntryList` its `listEntries` resolves to (the entries stay in wasm memory
//! and are read by index), [`auth`] its `client.auth` (sessions, auto-refresh, MFA), [`transport`]
//! sends the core's plain requests with gloo-net under the client's deadline and retries reads
//! (`timer` holds the two timers that takes), [`error`] turns every core error into a real JS
//! `Error`, `options` reads `createClient`'s options, [`js`] moves plain data across the
//! boundary, and [`realtime`] is `client.channel(...)`: Supabase Realtime over a WebSocket.
//!
//! Features: `auth` (`client.auth` and `createClient`'s `auth` options) and `realtime`
//! (`client.channel` and friends), the default (npm) build; `bench` (`parseEntriesForBenchmark`)
//! and `console_error_panic_hook` on request. The logbook page is built with `realtime` only
//! (wasm/pkg-logbook), as it signs nobody in.
#![cfg_attr(test, allow(clippy::unwrap_used))]

#[cfg(feature = "auth")]
pub mod auth;
pub mod client;
pub mod entry_list;
pub mod error;
#[cfg(feature = "auth")]
pub mod js;
mod options;
#[cfg(feature = "realtime")]
pub mod realtime;
#[cfg(feature = "realtime")]
mod realtime_api;
mod sign_options;
pub mod timer;
pub mod transport;
mod typescript;

#[cfg(feature = "auth")]
pub use auth::{Auth, Mfa, Subscription};
pub use client::{create_client, Client};
pub use entry_list::EntryList;
pub use error::ClientError;
#[cfg(feature = "realtime")]
pub use realtime::RealtimeChannel;

/// Runs when the module is instantiated (not exported): Rust panics then reach `console.error`
/// with their message. In the browser tests wasm-bindgen-test installs its own hook afterwards.
#[cfg(feature = "console_error_panic_hook")]
#[wasm_bindgen::prelude::wasm_bindgen(start, private)]
fn start() {
    console_error_panic_hook::set_once();
}
