//! wasm-bindgen bindings for the geocache logbook client.
//!
//! A thin layer over `geocache-core`, which builds every request and decides every step: this
//! crate performs the I/O, owns the timers and turns values and errors into JS.
//!
//! - [`client`]: `createClient` and the exported `Client`: the logbook's reads (an [`EntryList`]
//!   whose rows stay in wasm memory and are read by index) and signs, and the way to the services.
//! - One module per service, as in core: [`auth`] (`client.auth`: sessions, auto-refresh, MFA),
//!   [`realtime`] (`client.channel(...)`, and the standalone `createRealtimeClient`: Supabase
//!   Realtime over a WebSocket), [`storage`] (`client.storage`: buckets and objects) and
//!   [`functions`] (`client.functions`: Edge Functions).
//! - [`transport`]: sends core's plain requests with gloo-net under the client's deadline and
//!   retries reads; beside it the timers that takes and where each call's bearer comes from.
//! - What every export shares at the boundary: `config` (the validated URL and key), [`error`]
//!   (every core error turned into a real JS `Error`, once), [`js`] (plain data across, one serde
//!   helper each way) and `typescript` (the TS types the pinned signatures name).
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
pub mod error;
#[cfg(feature = "functions")]
pub mod functions;
#[cfg(feature = "auth")]
pub mod js;
#[cfg(feature = "realtime")]
pub mod realtime;
#[cfg(feature = "storage")]
pub mod storage;
#[cfg(any(feature = "rest", feature = "realtime"))]
pub mod transport;
mod typescript;

#[cfg(feature = "auth")]
pub use auth::{Auth, Mfa, Subscription};
#[cfg(feature = "rest")]
pub use client::entry_list::EntryList;
#[cfg(feature = "rest")]
pub use client::{create_client, Client};
pub use error::ClientError;
#[cfg(feature = "functions")]
pub use functions::Functions;
#[cfg(feature = "realtime")]
pub use realtime::client::{create_realtime_client, RealtimeClient};
#[cfg(feature = "realtime")]
pub use realtime::RealtimeChannel;
#[cfg(feature = "storage")]
pub use storage::{StorageClient, StorageFileApi};

/// Runs when the module is instantiated (not exported): Rust panics then reach `console.error`
/// with their message. In the browser tests wasm-bindgen-test installs its own hook afterwards.
#[cfg(feature = "console_error_panic_hook")]
#[wasm_bindgen::prelude::wasm_bindgen(start, private)]
fn start() {
    console_error_panic_hook::set_once();
}
