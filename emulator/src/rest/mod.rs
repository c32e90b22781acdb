//! The PostgREST subset under `/rest/v1`, behind the API gateway's key check: the logbook's
//! tables and the owner's two functions (`/rest/v1/rpc/...`). Its errors are PostgREST's
//! ([`error`]) and its tables the logbook's ([`schema`]), with the owners ([`owners`]).

pub mod error;
mod handlers;
mod media;
pub mod owners;
mod payload;
pub(crate) mod plan;
mod prefer;
pub mod query;
mod response;
pub(crate) mod role;
mod rpc;
pub(crate) mod schema;
pub mod sign_limit;
pub mod sign_once;
pub(crate) mod sql;
mod store;
pub mod write_context;

pub use schema::migrate;

use crate::clock::Clock;
use crate::db::Database;
use crate::gateway::{self, Gateway};
use crate::http::client_address::TrustedProxies;
use crate::keys::Keys;
use crate::read_access::ReadAccess;
use crate::realtime::Hub;
use crate::rest::sign_limit::SignLimiter;
use axum::extract::FromRef;
use axum::middleware;
use axum::routing::any;
use axum::Router;
use std::sync::Arc;

/// Hosted Supabase's `[api] max_rows`: the most rows one read returns, unless configured.
pub const DEFAULT_MAX_ROWS: i64 = 1000;

/// What the table endpoint needs; cheap to clone.
#[derive(Clone, Debug)]
pub struct RestState {
    pub db: Database,
    pub keys: Arc<Keys>,
    pub clock: Clock,
    /// A read returns at most this many rows (PostgREST's `db-max-rows`).
    pub max_rows: i64,
    /// Who may read the table, which Realtime's changes follow too.
    pub read_access: ReadAccess,
    /// The logbook's spam limit and its counts, shared by every clone.
    pub sign_limit: Arc<SignLimiter>,
    /// Where committed writes are published to Realtime's subscribers.
    pub realtime: Arc<Hub>,
    pub trusted_proxies: TrustedProxies,
}

impl FromRef<RestState> for TrustedProxies {
    fn from_ref(state: &RestState) -> TrustedProxies {
        state.trusted_proxies.clone()
    }
}

pub fn router(state: RestState, gateway: Gateway) -> Router {
    Router::new()
        .route("/rest/v1/{table}", any(handlers::table))
        .route("/rest/v1/rpc/{function}", any(rpc::call))
        .route("/rest/v1", any(handlers::invalid_path))
        .route("/rest/v1/", any(handlers::invalid_path))
        .route("/rest/v1/{table}/{*rest}", any(handlers::invalid_path))
        .route_layer(middleware::from_fn_with_state(
            gateway,
            gateway::require_api_key,
        ))
        .with_state(state)
}
