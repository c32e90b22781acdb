//! `/functions/v1/<name>`: Edge Functions, run by a function server the developer starts
//! (`--functions-url`, or `[functions] url` in `emulator.toml`) and reached through this relay as
//! through the hosted platform's. The relay answers by itself only where the platform does: a
//! function that does not exist ([`settings`]) is 404 `NOT_FOUND`, a missing or bad JWT where
//! the function's `verify_jwt` is on (the default) is 401 ([`verify_jwt`]), and a function
//! server that cannot be reached is a relay error ([`error`]), whose details (the server's
//! address among them) go to the log only. Everything else is the function's own answer
//! ([`proxy`]). Beyond the platform, a path that might no longer name the function once the
//! function server resolves it is refused with 400 ([`path`]).
//!
//! No API key is asked for: as on hosted projects, a function with `verify_jwt = false` may be
//! called by anyone (a webhook, say), and one with it on checks the bearer itself.

pub mod error;
pub mod path;
pub mod proxy;
pub mod settings;
pub mod verify_jwt;

use crate::clock::Clock;
use crate::functions::error::FunctionsError;
use crate::functions::settings::{is_function_name, FunctionsSettings};
use crate::keys::Keys;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use std::sync::Arc;

/// What the relay needs; cheap to clone.
#[derive(Clone, Debug)]
pub struct FunctionsState {
    pub keys: Arc<Keys>,
    pub clock: Clock,
    /// Which functions exist and where their server listens.
    pub settings: Arc<FunctionsSettings>,
}

/// The routes of `/functions/v1`.
pub fn router(state: FunctionsState) -> Router {
    Router::new()
        .route("/functions/v1/{name}", any(invoke))
        .route("/functions/v1/{name}/{*rest}", any(invoke))
        .with_state(state)
}

async fn invoke(State(state): State<FunctionsState>, request: Request) -> Response {
    match relay(&state, request).await {
        Ok(response) => response,
        Err(error) => {
            if let FunctionsError::Relay(reason) = &error {
                eprintln!("geocache-emulator: functions: {reason}");
            }
            error.into_response()
        }
    }
}

async fn relay(state: &FunctionsState, request: Request) -> Result<Response, FunctionsError> {
    // The raw path: `/<name>` and whatever the caller put after it, still encoded.
    let function_path = request
        .uri()
        .path()
        .strip_prefix("/functions/v1")
        .unwrap_or_default()
        .to_owned();
    let name = function_path
        .strip_prefix('/')
        .unwrap_or_default()
        .split('/')
        .next()
        .unwrap_or_default();
    let settings = state.settings.as_ref();
    let function = Some(name)
        .filter(|name| is_function_name(name))
        .and_then(|name| settings.lookup(name))
        .ok_or(FunctionsError::NotFound)?;
    let rest = &function_path[1 + name.len()..];
    if !path::is_forwardable(rest) {
        return Err(FunctionsError::InvalidPath);
    }
    if function.verify_jwt {
        verify_jwt::check(&state.keys, request.headers(), state.clock.now_seconds())?;
    }
    let server = settings.server.as_ref().ok_or_else(|| {
        FunctionsError::Relay(
            "No function server is configured: start one and pass its URL with \
             --functions-url (or [functions] url in emulator.toml)"
                .to_owned(),
        )
    })?;
    proxy::forward(server, &function_path, request).await
}
