//! The PostgREST subset under `/rest/v1`, behind the API gateway's key check.

pub mod error;
mod handlers;
mod media;
mod payload;
pub(crate) mod plan;
mod prefer;
pub mod query;
mod response;
pub(crate) mod role;
pub(crate) mod schema;
pub mod sign_limit;
pub mod sign_once;
pub(crate) mod sql;
mod store;

pub use schema::migrate;

use crate::gateway;
use crate::state::AppState;
use axum::middleware;
use axum::routing::any;
use axum::Router;

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/rest/v1/{table}", any(handlers::table))
        .route("/rest/v1", any(handlers::invalid_path))
        .route("/rest/v1/", any(handlers::invalid_path))
        .route("/rest/v1/{table}/{*rest}", any(handlers::invalid_path))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            gateway::require_api_key,
        ))
        .with_state(state)
}
