//! `POST /auth/v1/token`: password and refresh-token grants.

use super::support::{claims, AuthApp, API_VERSION, PASSWORD};
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

const PASSWORD_GRANT: &str = "/auth/v1/token?grant_type=password";

#[tokio::test]
async fn sign_in_opens_a_new_session() {
    let auth = AuthApp::new();
    let signed_up = auth.sign_up("walker@example.com").await;
    auth.clock.advance_seconds(90);
    let signed_in = auth.sign_in("WALKER@example.com").await;
    let (first, second) = (signed_up.claims(), signed_in.claims());
    assert_eq!(second["sub"], first["sub"]);
    assert_ne!(second["session_id"], first["session_id"]);
    assert_eq!(
        second["amr"],
        json!([{"method": "password", "timestamp": auth.now()}])
    );
    assert_eq!(second["aal"], "aal1");
    assert_eq!(signed_in.body["expires_at"], auth.now() + 3600);
    assert_eq!(
        signed_in.body["user"]["last_sign_in_at"],
        "2027-01-15T08:01:40Z"
    );
    assert_eq!(signed_in.body["user"]["created_at"], "2027-01-15T08:00:10Z");
    // Both sessions live on.
    assert_eq!(
        auth.get_user(&signed_up.access_token).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn wrong_credentials_are_one_error() {
    let auth = AuthApp::new();
    auth.sign_up("walker@example.com").await;
    for body in [
        json!({"email": "walker@example.com", "password": "wrong password"}),
        json!({"email": "walker@example.com", "password": ""}),
        json!({"email": "walker@example.com"}),
        json!({"email": "nobody@example.com", "password": PASSWORD}),
        json!({"phone": "+15551234567", "password": PASSWORD}),
    ] {
        auth.anon(Method::POST, PASSWORD_GRANT)
            .json(&body)
            .send()
            .await
            .assert_auth_error(
                StatusCode::BAD_REQUEST,
                "invalid_credentials",
                "Invalid login credentials",
            );
    }
    auth.anon(Method::POST, PASSWORD_GRANT)
        .header("x-supabase-api-version", API_VERSION)
        .json(&json!({"email": "walker@example.com", "password": "nope"}))
        .send()
        .await
        .assert_current_auth_error(
            StatusCode::BAD_REQUEST,
            "invalid_credentials",
            "Invalid login credentials",
        );
}

#[tokio::test]
async fn malformed_password_grants_fail_validation() {
    let auth = AuthApp::new();
    let cases: [(Value, &str); 3] = [
        (json!({"password": PASSWORD}), "missing email or phone"),
        (
            json!({"email": "", "phone": "", "password": PASSWORD}),
            "missing email or phone",
        ),
        (
            json!({"email": "a@example.com", "phone": "+15551234567", "password": PASSWORD}),
            "Only an email address or phone number should be provided on login.",
        ),
    ];
    for (body, message) in cases {
        auth.anon(Method::POST, PASSWORD_GRANT)
            .json(&body)
            .send()
            .await
            .assert_auth_error(StatusCode::BAD_REQUEST, "validation_failed", message);
    }
    let response = auth
        .anon(Method::POST, PASSWORD_GRANT)
        .raw_body("nope")
        .send()
        .await;
    assert_eq!(response.json()["error_code"], "bad_json");
}

#[tokio::test]
async fn unknown_grant_types_are_refused() {
    let auth = AuthApp::new();
    for uri in [
        "/auth/v1/token",
        "/auth/v1/token?grant_type=pkce2",
        "/auth/v1/token?grant_type=",
    ] {
        auth.anon(Method::POST, uri)
            .json(&json!({}))
            .send()
            .await
            .assert_auth_error(
                StatusCode::BAD_REQUEST,
                "invalid_credentials",
                "unsupported_grant_type",
            );
    }
}

#[tokio::test]
async fn refresh_rotates_the_refresh_token_and_keeps_the_session() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    auth.clock.advance_seconds(3000);
    let response = auth.refresh(&session.refresh_token).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    let body = response.json();
    let refreshed = claims(body["access_token"].as_str().unwrap());
    let original = session.claims();
    assert_eq!(refreshed["session_id"], original["session_id"]);
    assert_eq!(refreshed["iat"], auth.now());
    assert_eq!(refreshed["exp"], auth.now() + 3600);
    assert_eq!(body["expires_in"], 3600);
    // The AMR still records the sign-in, not the refresh.
    assert_eq!(refreshed["amr"], original["amr"]);
    let rotated = body["refresh_token"].as_str().unwrap();
    assert_ne!(rotated, session.refresh_token);
    assert_eq!(body["user"]["id"], session.user_id.as_str());

    // The rotated token works once more.
    let again = auth.refresh(rotated).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
}

#[tokio::test]
async fn a_used_refresh_token_is_refused_and_revokes_its_session_tokens() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let rotated = auth.refresh(&session.refresh_token).await.json()["refresh_token"]
        .as_str()
        .unwrap()
        .to_owned();
    auth.refresh(&session.refresh_token)
        .await
        .assert_auth_error(
            StatusCode::BAD_REQUEST,
            "refresh_token_already_used",
            "Invalid Refresh Token: Already Used",
        );
    // Reuse detection revoked the whole family, the rotated token included.
    auth.refresh(&rotated).await.assert_auth_error(
        StatusCode::BAD_REQUEST,
        "refresh_token_already_used",
        "Invalid Refresh Token: Already Used",
    );
    // Another session of the same user is untouched.
    let other = auth.sign_in("walker@example.com").await;
    assert_eq!(
        auth.refresh(&other.refresh_token).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn unknown_and_malformed_refresh_tokens_are_refused() {
    let auth = AuthApp::new();
    auth.refresh("abcdefghijkl").await.assert_auth_error(
        StatusCode::BAD_REQUEST,
        "refresh_token_not_found",
        "Invalid Refresh Token: Refresh Token Not Found",
    );
    for token in [
        "",
        "short",
        "ABCDEFGHIJKL",
        "abcdefghijklm",
        "<script>x</script>",
    ] {
        auth.refresh(token).await.assert_auth_error(
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "Refresh token is not valid",
        );
    }
    auth.anon(Method::POST, "/auth/v1/token?grant_type=refresh_token")
        .header("x-supabase-api-version", API_VERSION)
        .json(&json!({"refresh_token": "abcdefghijkl"}))
        .send()
        .await
        .assert_current_auth_error(
            StatusCode::BAD_REQUEST,
            "refresh_token_not_found",
            "Invalid Refresh Token: Refresh Token Not Found",
        );
}

#[tokio::test]
async fn an_expired_access_token_is_renewed_by_refreshing() {
    let auth = AuthApp::with_settings(|settings| settings.jwt_expiry = 5);
    let session = auth.sign_up("walker@example.com").await;
    assert_eq!(session.body["expires_in"], 5);
    assert_eq!(session.claims()["exp"], auth.now() + 5);
    auth.clock.advance_seconds(4);
    assert_eq!(
        auth.get_user(&session.access_token).await.status,
        StatusCode::OK
    );
    auth.clock.advance_seconds(1);
    auth.get_user(&session.access_token).await.assert_auth_error(
        StatusCode::FORBIDDEN,
        "bad_jwt",
        "invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired",
    );
    let refreshed = auth.refresh(&session.refresh_token).await.json();
    let token = refreshed["access_token"].as_str().unwrap();
    assert_eq!(auth.get_user(token).await.status, StatusCode::OK);
}
