//! The two error body styles, chosen by `X-Supabase-Api-Version`, CORS for the auth routes, and
//! internal failures.

use super::support::{AuthApp, API_VERSION};
use crate::support::DbResult;
use axum::http::{Method, StatusCode};
use serde_json::json;

async fn failed_sign_in(auth: &AuthApp, version: Option<&str>) -> crate::support::TestResponse {
    let mut request = auth
        .anon(Method::POST, "/auth/v1/token?grant_type=password")
        .json(&json!({"email": "nobody@example.com", "password": "whatever1"}));
    if let Some(version) = version {
        request = request.header("x-supabase-api-version", version);
    }
    request.send().await
}

#[tokio::test]
async fn without_the_header_errors_use_the_original_body() {
    let auth = AuthApp::new();
    let response = failed_sign_in(&auth, None).await;
    assert_eq!(
        response.body,
        r#"{"code":400,"error_code":"invalid_credentials","msg":"Invalid login credentials"}"#
    );
    assert_eq!(
        response.header("x-sb-error-code"),
        Some("invalid_credentials")
    );
    assert_eq!(response.header("x-supabase-api-version"), None);
}

#[tokio::test]
async fn from_2024_01_01_errors_use_code_and_message_and_echo_the_version() {
    let auth = AuthApp::new();
    for version in [API_VERSION, "2025-06-30"] {
        let response = failed_sign_in(&auth, Some(version)).await;
        assert_eq!(
            response.body,
            r#"{"code":"invalid_credentials","message":"Invalid login credentials"}"#
        );
        assert_eq!(
            response.header("x-sb-error-code"),
            Some("invalid_credentials")
        );
        assert_eq!(
            response.header("x-supabase-api-version"),
            Some("2024-01-01")
        );
    }
}

#[tokio::test]
async fn older_or_malformed_versions_get_the_original_body_without_echo() {
    let auth = AuthApp::new();
    for version in ["2023-12-31", "2024-1-1", "yesterday"] {
        let response = failed_sign_in(&auth, Some(version)).await;
        assert_eq!(
            response.json()["error_code"],
            "invalid_credentials",
            "{version}"
        );
        assert_eq!(response.header("x-supabase-api-version"), None, "{version}");
    }
}

#[tokio::test]
async fn successes_do_not_echo_the_version() {
    let auth = AuthApp::new();
    let response = auth
        .anon(Method::POST, "/auth/v1/signup")
        .header("x-supabase-api-version", API_VERSION)
        .json(&json!({"email": "walker@example.com", "password": "secret123"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.header("x-supabase-api-version"), None);
    assert_eq!(response.header("x-sb-error-code"), None);
}

#[tokio::test]
async fn internal_failures_are_gotrues_unexpected_failure() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    auth.app
        .state
        .db
        .call(|connection| -> DbResult<_> {
            Ok(connection.execute_batch("DROP TABLE auth_factors")?)
        })
        .await
        .unwrap();
    auth.get_user(&session.access_token)
        .await
        .assert_auth_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unexpected_failure",
            "Unexpected failure, please check server logs for more information",
        );
    let current = auth
        .user(Method::GET, "/auth/v1/user", &session.access_token)
        .header("x-supabase-api-version", API_VERSION)
        .send()
        .await;
    current.assert_current_auth_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "unexpected_failure",
        "Unexpected failure, please check server logs for more information",
    );
}

#[tokio::test]
async fn preflight_allows_what_supabase_js_sends_to_auth() {
    let auth = AuthApp::new();
    for path in [
        "/auth/v1/token?grant_type=password",
        "/auth/v1/factors/x/verify",
        "/auth/v1/user",
    ] {
        let response = auth
            .app
            .bare(Method::OPTIONS, path)
            .header("origin", "http://127.0.0.1:5173")
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "apikey,authorization,content-type,x-client-info,x-supabase-api-version",
            )
            .send()
            .await;
        assert!(
            response.status.is_success(),
            "{path}: {:?}",
            response.status
        );
        assert_eq!(response.header("access-control-allow-origin"), Some("*"));
        let allowed = response.header("access-control-allow-headers").unwrap();
        for header in [
            "apikey",
            "authorization",
            "content-type",
            "x-client-info",
            "x-supabase-api-version",
        ] {
            assert!(
                allowed.split(',').any(|name| name == header),
                "{header} in {allowed}"
            );
        }
        let methods = response.header("access-control-allow-methods").unwrap();
        assert!(
            methods.contains("DELETE") && methods.contains("POST"),
            "{methods}"
        );
    }
    let error = auth
        .anon(Method::GET, "/auth/v1/user")
        .header("origin", "http://127.0.0.1:5173")
        .header("x-supabase-api-version", API_VERSION)
        .send()
        .await;
    assert_eq!(error.header("access-control-allow-origin"), Some("*"));
    let exposed = error.header("access-control-expose-headers").unwrap();
    assert!(exposed.contains("x-supabase-api-version"), "{exposed}");
}
