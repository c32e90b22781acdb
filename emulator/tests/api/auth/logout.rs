//! `POST /auth/v1/logout?scope=global|local|others`.

use super::support::{AuthApp, Session};
use axum::http::{Method, StatusCode};

async fn logout(auth: &AuthApp, session: &Session, query: &str) -> StatusCode {
    let response = auth
        .user(
            Method::POST,
            &format!("/auth/v1/logout{query}"),
            &session.access_token,
        )
        .send()
        .await;
    assert!(response.body.is_empty(), "{}", response.body);
    response.status
}

/// Three sessions of one user and one of another.
async fn sessions(auth: &AuthApp) -> (Session, Session, Session, Session) {
    let first = auth.sign_up("walker@example.com").await;
    let second = auth.sign_in("walker@example.com").await;
    let third = auth.sign_in("walker@example.com").await;
    let stranger = auth.sign_up("stranger@example.com").await;
    (first, second, third, stranger)
}

async fn alive(auth: &AuthApp, session: &Session) -> bool {
    let user = auth.get_user(&session.access_token).await.status == StatusCode::OK;
    let refresh = auth.refresh(&session.refresh_token).await.status == StatusCode::OK;
    assert_eq!(user, refresh, "session and refresh token disagree");
    user
}

#[tokio::test]
async fn global_logout_ends_every_session_of_the_user() {
    let auth = AuthApp::new();
    let (first, second, third, stranger) = sessions(&auth).await;
    assert_eq!(logout(&auth, &second, "").await, StatusCode::NO_CONTENT);
    for session in [&first, &second, &third] {
        assert!(!alive(&auth, session).await);
    }
    assert!(alive(&auth, &stranger).await);
    // The refresh tokens went with the sessions.
    auth.refresh(&first.refresh_token).await.assert_auth_error(
        StatusCode::BAD_REQUEST,
        "refresh_token_not_found",
        "Invalid Refresh Token: Refresh Token Not Found",
    );
}

#[tokio::test]
async fn explicit_global_scope_is_the_default() {
    let auth = AuthApp::new();
    let (first, second, _, _) = sessions(&auth).await;
    assert_eq!(
        logout(&auth, &first, "?scope=global").await,
        StatusCode::NO_CONTENT
    );
    assert!(!alive(&auth, &second).await);
}

#[tokio::test]
async fn local_logout_ends_only_this_session() {
    let auth = AuthApp::new();
    let (first, second, third, _) = sessions(&auth).await;
    assert_eq!(
        logout(&auth, &second, "?scope=local").await,
        StatusCode::NO_CONTENT
    );
    assert!(!alive(&auth, &second).await);
    assert!(alive(&auth, &first).await);
    assert!(alive(&auth, &third).await);
}

#[tokio::test]
async fn others_logout_keeps_only_this_session() {
    let auth = AuthApp::new();
    let (first, second, third, stranger) = sessions(&auth).await;
    assert_eq!(
        logout(&auth, &second, "?scope=others").await,
        StatusCode::NO_CONTENT
    );
    assert!(alive(&auth, &second).await);
    assert!(!alive(&auth, &first).await);
    assert!(!alive(&auth, &third).await);
    assert!(alive(&auth, &stranger).await);
}

#[tokio::test]
async fn unknown_scopes_and_missing_bearers_are_refused() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    auth.user(
        Method::POST,
        "/auth/v1/logout?scope=everyone",
        &session.access_token,
    )
    .send()
    .await
    .assert_auth_error(
        StatusCode::BAD_REQUEST,
        "validation_failed",
        "Unsupported logout scope \"everyone\"",
    );
    auth.app
        .bare(Method::POST, "/auth/v1/logout")
        .header("apikey", &auth.app.anon)
        .send()
        .await
        .assert_auth_error(
            StatusCode::UNAUTHORIZED,
            "no_authorization",
            "This endpoint requires a valid Bearer token",
        );
    assert!(alive(&auth, &session).await);
}
