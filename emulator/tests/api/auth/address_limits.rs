//! The per-client-address limits of the Supabase CLI's `[auth.rate_limit]`, over five minutes:
//! sign-ins and sign-ups together, session refreshes, and MFA verifications.

use super::support::{AuthApp, Session, PASSWORD, RAISED_LIMIT};
use crate::support::TestResponse;
use axum::http::{Method, StatusCode};
use geocache_emulator::auth::settings::AuthSettings;
use serde_json::json;

const HOME: &str = "203.0.113.10:40000";
const NEIGHBOUR: &str = "203.0.113.11:40000";

fn assert_rate_limited(response: &TestResponse) {
    response.assert_auth_error(
        StatusCode::TOO_MANY_REQUESTS,
        "over_request_rate_limit",
        "Request rate limit reached",
    );
}

async fn sign_in_from(auth: &AuthApp, peer: &str, password: &str) -> TestResponse {
    auth.anon(Method::POST, "/auth/v1/token?grant_type=password")
        .from(peer)
        .json(&json!({"email": "walker@example.com", "password": password}))
        .send()
        .await
}

async fn sign_up_from(auth: &AuthApp, peer: &str, email: &str) -> TestResponse {
    auth.anon(Method::POST, "/auth/v1/signup")
        .from(peer)
        .json(&json!({"email": email, "password": PASSWORD}))
        .send()
        .await
}

#[tokio::test]
async fn the_defaults_are_the_clis() {
    let defaults = AuthSettings::default();
    assert_eq!(
        (
            defaults.sign_in_sign_ups_limit,
            defaults.token_refresh_limit,
            defaults.token_verifications_limit
        ),
        (30, 150, 30)
    );
}

#[tokio::test]
async fn sign_ins_and_sign_ups_share_one_budget_per_address_over_five_minutes() {
    let auth = AuthApp::with_settings(|settings| settings.sign_in_sign_ups_limit = 4);
    assert_eq!(
        sign_up_from(&auth, HOME, "walker@example.com").await.status,
        StatusCode::OK
    );
    // Wrong passwords count as much as right ones.
    auth.clock.advance_seconds(100);
    sign_in_from(&auth, HOME, "wrong password")
        .await
        .assert_auth_error(
            StatusCode::BAD_REQUEST,
            "invalid_credentials",
            "Invalid login credentials",
        );
    assert_eq!(
        sign_in_from(&auth, HOME, PASSWORD).await.status,
        StatusCode::OK
    );
    auth.clock.advance_seconds(100);
    assert_eq!(
        sign_up_from(&auth, HOME, "friend@example.com").await.status,
        StatusCode::OK
    );
    assert_rate_limited(&sign_in_from(&auth, HOME, PASSWORD).await);
    assert_rate_limited(&sign_up_from(&auth, HOME, "third@example.com").await);
    // The same request from another address goes through.
    assert_eq!(
        sign_in_from(&auth, NEIGHBOUR, PASSWORD).await.status,
        StatusCode::OK
    );
    // Five minutes after the first, its place is free again (one place: three are still in).
    auth.clock.advance_seconds(99);
    assert_rate_limited(&sign_in_from(&auth, HOME, PASSWORD).await);
    auth.clock.advance_seconds(1);
    assert_eq!(
        sign_in_from(&auth, HOME, PASSWORD).await.status,
        StatusCode::OK
    );
    assert_rate_limited(&sign_in_from(&auth, HOME, PASSWORD).await);
}

#[tokio::test]
async fn refreshes_have_their_own_budget_per_address() {
    let auth = AuthApp::with_settings(|settings| {
        settings.sign_in_sign_ups_limit = RAISED_LIMIT;
        settings.token_refresh_limit = 2;
    });
    let mut session: Session = auth.sign_up("walker@example.com").await;
    for _ in 0..2 {
        let response = auth
            .anon(Method::POST, "/auth/v1/token?grant_type=refresh_token")
            .from(HOME)
            .json(&json!({"refresh_token": session.refresh_token}))
            .send()
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        session.refresh_token = response.json()["refresh_token"]
            .as_str()
            .unwrap()
            .to_owned();
    }
    let refused = auth
        .anon(Method::POST, "/auth/v1/token?grant_type=refresh_token")
        .from(HOME)
        .json(&json!({"refresh_token": session.refresh_token}))
        .send()
        .await;
    assert_rate_limited(&refused);
    // Sign-ins from that address are not refresh requests: still allowed.
    assert_eq!(
        sign_in_from(&auth, HOME, PASSWORD).await.status,
        StatusCode::OK
    );
    // The refused refresh did not spend the token.
    let elsewhere = auth
        .anon(Method::POST, "/auth/v1/token?grant_type=refresh_token")
        .from(NEIGHBOUR)
        .json(&json!({"refresh_token": session.refresh_token}))
        .send()
        .await;
    assert_eq!(elsewhere.status, StatusCode::OK, "{}", elsewhere.body);
}

#[tokio::test]
async fn mfa_verifications_are_limited_per_address_whoever_signs_in() {
    let auth = AuthApp::with_settings(|settings| settings.token_verifications_limit = 3);
    // Two accounts behind one address: the budget is the address's, not each user's.
    let walker = auth.sign_up("walker@example.com").await;
    let friend = auth.sign_up("friend@example.com").await;
    let (walkers_factor, _) = auth.enroll_totp(&walker, "app").await;
    let (friends_factor, _) = auth.enroll_totp(&friend, "app").await;
    let verify = |session: &Session, factor_id: &str, peer: &str| {
        auth.user(
            Method::POST,
            &format!("/auth/v1/factors/{factor_id}/verify"),
            &session.access_token,
        )
        .from(peer)
        .json(&json!({"challenge_id": "6ba7b810-9dad-41d1-80b4-00c04fd430c8", "code": "000000"}))
    };
    for (session, factor) in [
        (&walker, &walkers_factor),
        (&friend, &friends_factor),
        (&walker, &walkers_factor),
    ] {
        let response = verify(session, factor, HOME).send().await;
        assert_eq!(
            response.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            response.body
        );
    }
    assert_rate_limited(&verify(&friend, &friends_factor, HOME).send().await);
    let elsewhere = verify(&friend, &friends_factor, NEIGHBOUR).send().await;
    assert_eq!(elsewhere.status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn ipv6_clients_are_counted_by_their_64() {
    let auth = AuthApp::with_settings(|settings| settings.sign_in_sign_ups_limit = 1);
    assert_eq!(
        sign_up_from(&auth, "[2001:db8:1:2::1]:40000", "walker@example.com")
            .await
            .status,
        StatusCode::OK
    );
    assert_rate_limited(&sign_in_from(&auth, "[2001:db8:1:2::ffff]:40000", PASSWORD).await);
    assert_eq!(
        sign_in_from(&auth, "[2001:db8:1:3::1]:40000", PASSWORD)
            .await
            .status,
        StatusCode::OK
    );
}
