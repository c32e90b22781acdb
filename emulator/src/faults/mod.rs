//! Fault injection for tests: added latency, 5xx answers, dropped connections, broken bodies and
//! responses out of order, on chosen paths and methods, every Nth time or with a seeded
//! probability ([`plan`]).
//!
//! | Route | |
//! |---|---|
//! | `GET /emulator/v1/faults` | the plan and, per rule, how many requests matched and fired |
//! | `POST /emulator/v1/faults` | installs a plan (JSON body), resetting counters and seeds |
//! | `DELETE /emulator/v1/faults` | removes every rule |
//!
//! The routes need a service-role key (the secret key or the service_role key) in the `apikey`
//! header (never the URL). The `--faults` flag installs a plan at start-up. Faults apply only to
//! `/rest/v1` and `/auth/v1` ([`middleware`]); dropping connections needs the emulator's
//! listener ([`crate::http::connection`]), which [`crate::run`] uses.

pub mod injector;
pub mod middleware;
pub mod plan;

use crate::error::ApiError;
use crate::faults::injector::Report;
use crate::faults::plan::FaultPlan;
use crate::gateway::{self, Gateway, ServiceRoleKey};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{middleware as axum_middleware, Json, Router};
use std::sync::Arc;

pub use injector::FaultInjector;

/// What the fault routes and the middleware need; cheap to clone.
#[derive(Clone, Debug)]
pub struct FaultsState {
    /// The plan and its counters, shared by every clone.
    pub injector: Arc<FaultInjector>,
    /// A request a fault answers instead is drained up to the gateway's limit.
    pub max_body_bytes: usize,
}

pub const ROUTE: &str = "/emulator/v1/faults";

pub fn router(state: FaultsState, gateway: Gateway) -> Router {
    Router::new()
        .route(ROUTE, get(report).post(install).delete(clear))
        .route_layer(axum_middleware::from_fn_with_state(
            gateway,
            gateway::require_api_key_header,
        ))
        .with_state(state)
}

async fn report(
    State(state): State<FaultsState>,
    _: ServiceRoleKey,
) -> Result<Json<Report>, ApiError> {
    Ok(Json(state.injector.report()))
}

async fn install(
    State(state): State<FaultsState>,
    _: ServiceRoleKey,
    body: Bytes,
) -> Result<Json<Report>, ApiError> {
    let plan = serde_json::from_slice::<FaultPlan>(&body)
        .map_err(|error| error.to_string())
        .and_then(FaultPlan::validated)
        .map_err(|problem| ApiError::Emulator {
            status: StatusCode::BAD_REQUEST,
            message: format!("invalid fault plan: {problem}"),
        })?;
    state.injector.install(plan);
    Ok(Json(state.injector.report()))
}

async fn clear(
    State(state): State<FaultsState>,
    _: ServiceRoleKey,
) -> Result<StatusCode, ApiError> {
    state.injector.clear();
    Ok(StatusCode::NO_CONTENT)
}
