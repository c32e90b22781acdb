//! What an attacker learns or gains: not which accounts exist (from timing), not a second use of
//! a TOTP code, not a second factor without passing the first.

use super::support::{totp_code, AuthApp};
use axum::http::{Method, StatusCode};
use serde_json::json;
use std::time::{Duration, Instant};

/// How long a password sign-in takes for each address, the fastest of a few tries. The addresses take turns, so
/// a moment the machine is busy slows one try of each rather than every try of one.
async fn sign_in_times(auth: &AuthApp, emails: [&str; 2]) -> [Duration; 2] {
    let mut fastest = [Duration::MAX; 2];
    for _ in 0..5 {
        for (email, fastest) in emails.iter().zip(fastest.iter_mut()) {
            let started = Instant::now();
            let response = auth
                .anon(Method::POST, "/auth/v1/token?grant_type=password")
                .json(&json!({"email": email, "password": "not the password"}))
                .send()
                .await;
            *fastest = (*fastest).min(started.elapsed());
            response.assert_auth_error(
                StatusCode::BAD_REQUEST,
                "invalid_credentials",
                "Invalid login credentials",
            );
        }
    }
    fastest
}

#[tokio::test]
async fn an_unknown_address_costs_the_same_bcrypt_work_as_a_wrong_password() {
    // Cost 10 (GoTrue's) takes tens of milliseconds; a database look-up alone takes well under one.
    let auth = AuthApp::with_settings(|settings| settings.password_hash_cost = 10);
    auth.sign_up("walker@example.com").await;
    let [known, unknown] = sign_in_times(&auth, ["walker@example.com", "nobody@example.com"]).await;
    assert!(
        unknown * 2 > known,
        "unknown address {unknown:?}, wrong password {known:?}"
    );
}

#[tokio::test]
async fn a_totp_time_step_is_accepted_once_per_factor() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (aal2, factor_id, secret) = auth.verified_totp(&session).await;
    // The same code again, on a fresh challenge, within its 30 s: refused.
    let again = auth.challenge_id(&aal2, &factor_id).await;
    let spent = totp_code(&secret, auth.now());
    auth.verify(&aal2, &factor_id, &again, &spent)
        .await
        .assert_auth_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_verification_failed",
            "Invalid TOTP code entered",
        );
    // A step later the code of the step before is still within the skew, but spent.
    auth.clock.advance_seconds(30);
    let challenge = auth.challenge_id(&aal2, &factor_id).await;
    auth.verify(&aal2, &factor_id, &challenge, &spent)
        .await
        .assert_auth_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_verification_failed",
            "Invalid TOTP code entered",
        );
    // The new step's code is accepted once; then the previous step cannot follow it.
    let next = totp_code(&secret, auth.now() + 30);
    let response = auth.verify(&aal2, &factor_id, &challenge, &next).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    let after = auth.challenge_id(&aal2, &factor_id).await;
    auth.verify(&aal2, &factor_id, &after, &totp_code(&secret, auth.now()))
        .await
        .assert_auth_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_verification_failed",
            "Invalid TOTP code entered",
        );
}

#[tokio::test]
async fn a_pending_factor_cannot_be_verified_below_aal2_once_another_is_verified() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    // Both enrolled before either was verified (allowed: no verified factor yet).
    let phone = auth.enroll_phone(&session, "mobile", "+15551234567").await;
    let (aal2, _, _) = auth.verified_totp(&session).await;
    // Someone with the password alone signs in and tries to finish the phone enrolment.
    let password_only = auth.sign_in("walker@example.com").await;
    let challenge = auth.challenge_id(&password_only, &phone).await;
    let code = auth.last_sms_code().await;
    auth.verify(&password_only, &phone, &challenge, &code)
        .await
        .assert_auth_error(
            StatusCode::FORBIDDEN,
            "insufficient_aal",
            "AAL2 required to verify an additional factor",
        );
    // The owner, past the first factor, can.
    let challenge = auth.challenge_id(&aal2, &phone).await;
    let code = auth.last_sms_code().await;
    let response = auth.verify(&aal2, &phone, &challenge, &code).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
}
