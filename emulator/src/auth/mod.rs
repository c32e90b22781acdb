//! The GoTrue subset under `/auth/v1`, behind the API gateway's key check: email and password
//! accounts (confirmed at sign-up), rotating refresh tokens and TOTP and phone second factors.
//!
//! | Route | Handler |
//! |---|---|
//! | `POST /auth/v1/signup` | [`signup`] |
//! | `POST /auth/v1/token?grant_type=password\|refresh_token` | [`token`] |
//! | `GET /auth/v1/user` | [`user`] |
//! | `POST /auth/v1/logout?scope=global\|local\|others` | [`logout`] |
//! | `POST /auth/v1/factors` | [`factors::enroll`] |
//! | `DELETE /auth/v1/factors/{factor_id}` | [`factors::unenroll`] |
//! | `POST /auth/v1/factors/{factor_id}/challenge` | [`challenge`] |
//! | `POST /auth/v1/factors/{factor_id}/verify` | [`verify`] |
//! | `GET /emulator/v1/sms` | [`sms_outbox`]: the codes "sent" by SMS, for tests |
//!
//! Errors use GoTrue's codes and messages in the body style the request's
//! `X-Supabase-Api-Version` asks for ([`error`]).

pub mod account;
pub mod api_version;
mod body;
mod challenge;
mod constant_time;
pub mod error;
mod factors;
pub mod json;
pub mod jwt;
mod logout;
mod password;
pub mod rate_limit;
pub mod service;
pub mod session_tokens;
pub mod settings;
pub mod signed_in_user;
mod signup;
mod sms_outbox;
pub mod store;
mod token_grant;
pub mod totp;
mod user;
mod validation;
mod verify;
mod with_signer;

pub use store::migrate;

use crate::auth::rate_limit::RateLimiter;
use crate::auth::settings::AuthSettings;
use crate::clock::Clock;
use crate::db::Database;
use crate::gateway::{self, Gateway};
use crate::http::client_address::TrustedProxies;
use crate::keys::Keys;
use axum::extract::FromRef;
use axum::middleware;
use axum::routing::{delete, get, post};
use axum::Router;
use std::sync::Arc;

/// What the auth routes need; cheap to clone.
#[derive(Clone, Debug)]
pub struct AuthState {
    pub db: Database,
    pub keys: Arc<Keys>,
    pub clock: Clock,
    pub settings: Arc<AuthSettings>,
    /// The auth server's rate limits and their counts, shared by every clone.
    pub rate_limit: Arc<RateLimiter>,
    pub trusted_proxies: TrustedProxies,
}

impl FromRef<AuthState> for TrustedProxies {
    fn from_ref(state: &AuthState) -> TrustedProxies {
        state.trusted_proxies.clone()
    }
}

/// The auth routes, and the SMS outbox the emulator keeps for tests.
pub fn router(state: AuthState, gateway: Gateway) -> Router {
    let api = Router::new()
        .route("/auth/v1/signup", post(signup::signup))
        .route("/auth/v1/token", post(token_grant::token))
        .route("/auth/v1/user", get(user::user))
        .route("/auth/v1/logout", post(logout::logout))
        .route("/auth/v1/factors", post(factors::enroll))
        .route("/auth/v1/factors/{factor_id}", delete(factors::unenroll))
        .route(
            "/auth/v1/factors/{factor_id}/challenge",
            post(challenge::challenge),
        )
        .route("/auth/v1/factors/{factor_id}/verify", post(verify::verify))
        .route_layer(middleware::from_fn(error::render_in_requested_style))
        .route_layer(middleware::from_fn_with_state(
            gateway.clone(),
            gateway::require_api_key,
        ))
        .with_state(state.clone());
    api.merge(sms_outbox::router(state, gateway))
}
