//! The logbook API with a signed-in user's access token: PostgREST runs the request as
//! `authenticated` while the token is valid.

use super::support::AuthApp;
use crate::support::TABLE_URL;
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn a_users_token_runs_as_authenticated() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let insert = auth
        .user(Method::POST, TABLE_URL, &session.access_token)
        .json(&json!({"name": "walker", "message": "signed in"}))
        .send()
        .await;
    assert_eq!(insert.status, StatusCode::CREATED, "{}", insert.body);
    // Only service_role may update: PostgREST answers 403 (not anon's 401) for authenticated.
    let update = auth
        .user(
            Method::PATCH,
            &format!("{TABLE_URL}?id=eq.1"),
            &session.access_token,
        )
        .json(&json!({"message": "edited"}))
        .send()
        .await;
    update.assert_postgrest_error(
        StatusCode::FORBIDDEN,
        "42501",
        "permission denied for table geocache_logs",
    );
}

#[tokio::test]
async fn an_expired_token_is_refused_by_postgrest_on_the_same_clock() {
    let auth = AuthApp::with_settings(|settings| settings.jwt_expiry = 60);
    let session = auth.sign_up("walker@example.com").await;
    // PostgREST allows 30 s of clock skew after `exp`.
    auth.clock.advance_seconds(90);
    let read = auth
        .user(Method::GET, TABLE_URL, &session.access_token)
        .send()
        .await;
    assert_eq!(read.status, StatusCode::OK, "{}", read.body);
    auth.clock.advance_seconds(1);
    let read = auth
        .user(Method::GET, TABLE_URL, &session.access_token)
        .send()
        .await;
    read.assert_postgrest_error(StatusCode::UNAUTHORIZED, "PGRST303", "JWT expired");
}
