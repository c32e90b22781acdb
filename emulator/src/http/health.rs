//! Liveness endpoints for scripts waiting on the emulator.

use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};

pub fn router() -> Router {
    Router::new()
        .route("/", get(health))
        .route("/health", get(health))
}

async fn health() -> Json<Value> {
    Json(json!({"status": "ok", "service": "geocache-emulator"}))
}
