//! `GET /auth/v1/user` and the bearer-token checks every signed-in route shares.

use super::support::{AuthApp, API_URL, API_VERSION};
use axum::http::{Method, StatusCode};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use geocache_emulator::db::DbLocation;
use geocache_emulator::state::AppState;
use serde_json::json;

#[tokio::test]
async fn the_user_is_the_one_of_the_token() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let response = auth.get_user(&session.access_token).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    assert_eq!(response.json(), session.body["user"]);
    assert!(!response.body.contains("factors"));
}

#[tokio::test]
async fn a_missing_or_malformed_bearer_is_no_authorization() {
    let auth = AuthApp::new();
    let no_bearer = auth
        .app
        .bare(Method::GET, "/auth/v1/user")
        .header("apikey", &auth.app.anon)
        .send()
        .await;
    no_bearer.assert_auth_error(
        StatusCode::UNAUTHORIZED,
        "no_authorization",
        "This endpoint requires a valid Bearer token",
    );
    for value in ["Basic abc", "Bearer", "Bearer  two-spaces", "Bearer a b"] {
        auth.app
            .bare(Method::GET, "/auth/v1/user")
            .header("apikey", &auth.app.anon)
            .header("authorization", value)
            .send()
            .await
            .assert_auth_error(
                StatusCode::UNAUTHORIZED,
                "no_authorization",
                "This endpoint requires a valid Bearer token",
            );
    }
    auth.app
        .bare(Method::GET, "/auth/v1/user")
        .header("apikey", &auth.app.anon)
        .header("x-supabase-api-version", API_VERSION)
        .send()
        .await
        .assert_current_auth_error(
            StatusCode::UNAUTHORIZED,
            "no_authorization",
            "This endpoint requires a valid Bearer token",
        );
}

#[tokio::test]
async fn bad_tokens_are_bad_jwt() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let foreign = AppState::open(
        &DbLocation::Memory,
        "another-secret-with-at-least-32-chars!!",
    )
    .unwrap()
    .keys
    .sign(&session.claims());
    let mut tampered: Vec<String> = session.access_token.split('.').map(str::to_owned).collect();
    tampered[1] = URL_SAFE_NO_PAD.encode(session.claims().to_string().replace("aal1", "aal2"));
    let prefix = "invalid JWT: unable to parse or verify signature, ";
    let cases = [
        (foreign, "token signature is invalid: signature is invalid"),
        (
            tampered.join("."),
            "token signature is invalid: signature is invalid",
        ),
        (
            "not.a.jwt".to_owned(),
            "token is malformed: could not base64 decode header",
        ),
        (
            "one-part".to_owned(),
            "token is malformed: token contains an invalid number of segments",
        ),
    ];
    for (token, reason) in cases {
        auth.get_user(&token).await.assert_auth_error(
            StatusCode::FORBIDDEN,
            "bad_jwt",
            &format!("{prefix}{reason}"),
        );
    }
}

#[tokio::test]
async fn claims_must_name_a_user_and_a_live_session() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let keys = &auth.app.state.keys;
    let with = |change: serde_json::Value| {
        let mut claims = session.claims();
        for (key, value) in change.as_object().unwrap() {
            claims[key] = value.clone();
        }
        keys.sign(&claims)
    };
    // The anon key is a valid JWT without a subject.
    auth.get_user(&auth.app.anon).await.assert_auth_error(
        StatusCode::FORBIDDEN,
        "bad_jwt",
        "invalid claim: missing sub claim",
    );
    auth.get_user(&with(json!({"sub": "walker"})))
        .await
        .assert_auth_error(
            StatusCode::BAD_REQUEST,
            "bad_jwt",
            "invalid claim: sub claim must be a UUID",
        );
    auth.get_user(&with(
        json!({"sub": "6ba7b810-9dad-41d1-80b4-00c04fd430c8"}),
    ))
    .await
    .assert_auth_error(
        StatusCode::FORBIDDEN,
        "user_not_found",
        "User from sub claim in JWT does not exist",
    );
    auth.get_user(&with(json!({"session_id": "s-1"})))
        .await
        .assert_auth_error(
            StatusCode::FORBIDDEN,
            "bad_jwt",
            "invalid claim: session_id claim must be a UUID",
        );
    auth.get_user(&with(
        json!({"session_id": "6ba7b810-9dad-41d1-80b4-00c04fd430c8"}),
    ))
    .await
    .assert_auth_error(
        StatusCode::FORBIDDEN,
        "session_not_found",
        "Session from session_id claim in JWT does not exist",
    );
    auth.get_user(&with(json!({"aud": "someone-else"})))
        .await
        .assert_auth_error(
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "Token audience doesn't match request audience",
        );
    // A token without a session is still the user's (GoTrue accepts it on /user).
    let sessionless = with(json!({"session_id": null}));
    assert_eq!(auth.get_user(&sessionless).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_logged_out_session_is_gone() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let logout = auth
        .user(Method::POST, "/auth/v1/logout", &session.access_token)
        .send()
        .await;
    assert_eq!(logout.status, StatusCode::NO_CONTENT);
    auth.get_user(&session.access_token)
        .await
        .assert_auth_error(
            StatusCode::FORBIDDEN,
            "session_not_found",
            "Session from session_id claim in JWT does not exist",
        );
}

#[tokio::test]
async fn issuer_follows_the_configured_api_url() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    assert_eq!(session.claims()["iss"], format!("{API_URL}/auth/v1"));
}
