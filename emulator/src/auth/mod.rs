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

use crate::gateway;
use crate::state::AppState;
use axum::middleware;
use axum::routing::{delete, get, post};
use axum::Router;

/// The auth routes, and the SMS outbox the emulator keeps for tests.
pub fn router(state: AppState) -> Router {
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
            state.clone(),
            gateway::require_api_key,
        ))
        .with_state(state.clone());
    api.merge(sms_outbox::router(state))
}
