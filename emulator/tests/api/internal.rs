//! Internal failures: a generic 500 for the client, the cause kept for the logging middleware.

use crate::support::{TestApp, TABLE_URL};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use geocache_emulator::db::DbLocation;
use geocache_emulator::error::InternalErrorCause;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use http_body_util::BodyExt;
use tower::ServiceExt;

#[tokio::test]
async fn storage_failures_are_500_without_leaking_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.sqlite3");
    let app = TestApp::with_state(
        AppState::open(&DbLocation::File(path.clone()), DEFAULT_JWT_SECRET).unwrap(),
    );
    // Break the database behind the emulator's back.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("DROP TABLE geocache_logs")
        .unwrap();

    let request = Request::get(TABLE_URL)
        .header("apikey", &app.anon)
        .body(Body::empty())
        .unwrap();
    let response = app.router().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let cause = response
        .extensions()
        .get::<InternalErrorCause>()
        .expect("the cause travels to the logging middleware")
        .0
        .clone();
    assert!(cause.contains("no such table"), "{cause}");
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["code"], "XX000");
    assert_eq!(body["message"], "internal emulator error");
    assert!(!body.to_string().contains("no such table"));
}
