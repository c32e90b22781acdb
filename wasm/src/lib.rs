//! wasm-bindgen bindings for the geocache logbook client.
//!
//! A thin layer over `geocache-core`: [`client`] exports `createClient` and the `Client` class,
//! [`auth`] its `client.auth` (sessions, auto-refresh, MFA), [`transport`] sends the core's plain
//! requests with gloo-net, [`error`] turns every core error into a real JS `Error`, and [`js`]
//! moves plain data across the boundary.

pub mod auth;
pub mod client;
pub mod error;
pub mod js;
pub mod transport;
mod typescript;

pub use auth::{Auth, Mfa, Subscription};
pub use client::{create_client, Client};
pub use error::ClientError;

/// Runs when the module is instantiated (not exported): Rust panics then reach `console.error`
/// with their message. In the browser tests wasm-bindgen-test installs its own hook afterwards.
#[cfg(feature = "console_error_panic_hook")]
#[wasm_bindgen::prelude::wasm_bindgen(start, private)]
fn start() {
    console_error_panic_hook::set_once();
}
