//! Challenge and verify requests are limited per user per minute (default 15 each).

use super::support::{AuthApp, API_VERSION};
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn the_sixteenth_challenge_in_a_minute_is_refused() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let stranger = auth.sign_up("stranger@example.com").await;
    let (factor_id, _) = auth.enroll_totp(&session, "app").await;
    let (strangers_factor, _) = auth.enroll_totp(&stranger, "app").await;
    for _ in 0..15 {
        auth.challenge_id(&session, &factor_id).await;
        auth.clock.advance_seconds(2);
    }
    auth.challenge(&session, &factor_id, json!({}))
        .await
        .assert_auth_error(
            StatusCode::TOO_MANY_REQUESTS,
            "over_request_rate_limit",
            "Request rate limit reached",
        );
    auth.user(
        Method::POST,
        &format!("/auth/v1/factors/{factor_id}/challenge"),
        &session.access_token,
    )
    .header("x-supabase-api-version", API_VERSION)
    .send()
    .await
    .assert_current_auth_error(
        StatusCode::TOO_MANY_REQUESTS,
        "over_request_rate_limit",
        "Request rate limit reached",
    );
    // Other users have their own allowance, and verify requests are counted separately.
    auth.challenge_id(&stranger, &strangers_factor).await;
    let verify = auth
        .verify(
            &session,
            &factor_id,
            "6ba7b810-9dad-41d1-80b4-00c04fd430c8",
            "123456",
        )
        .await;
    assert_eq!(
        verify.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        verify.body
    );
    // The first challenge was 30 s ago; 30 s later it leaves the window.
    auth.clock.advance_seconds(30);
    auth.challenge_id(&session, &factor_id).await;
}

#[tokio::test]
async fn verify_requests_are_limited_too_and_the_limit_is_configurable() {
    let auth = AuthApp::with_settings(|settings| settings.mfa_rate_limit = 2);
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, _) = auth.enroll_totp(&session, "app").await;
    let challenge = auth.challenge_id(&session, &factor_id).await;
    for _ in 0..2 {
        let response = auth
            .verify(&session, &factor_id, &challenge, "000000")
            .await;
        assert_eq!(
            response.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            response.body
        );
    }
    auth.verify(&session, &factor_id, &challenge, "000000")
        .await
        .assert_auth_error(
            StatusCode::TOO_MANY_REQUESTS,
            "over_request_rate_limit",
            "Request rate limit reached",
        );
    auth.clock.advance_seconds(60);
    let response = auth
        .verify(&session, &factor_id, &challenge, "000000")
        .await;
    assert_eq!(
        response.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        response.body
    );
}
