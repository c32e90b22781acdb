//! `POST /auth/v1/factors/{id}/verify`: codes, expiry, replay, and the AAL2 session it yields.

use super::support::{claims, totp_code, AuthApp, API_VERSION};
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn a_correct_totp_code_raises_the_session_to_aal2() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let signed_in_at = auth.now();
    let (factor_id, secret) = auth.enroll_totp(&session, "app").await;
    auth.clock.advance_seconds(20);
    let challenge = auth.challenge_id(&session, &factor_id).await;
    let response = auth
        .verify(
            &session,
            &factor_id,
            &challenge,
            &totp_code(&secret, auth.now()),
        )
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    let body = response.json();
    assert_eq!(body["token_type"], "bearer");
    assert_eq!(body["expires_in"], 3600);
    assert_eq!(body["expires_at"], auth.now() + 3600);
    let refresh_token = body["refresh_token"].as_str().unwrap();
    assert_ne!(refresh_token, session.refresh_token);
    let new_claims = claims(body["access_token"].as_str().unwrap());
    assert_eq!(new_claims["aal"], "aal2");
    assert_eq!(new_claims["session_id"], session.claims()["session_id"]);
    assert_eq!(
        new_claims["amr"],
        json!([
            {"method": "totp", "timestamp": auth.now()},
            {"method": "password", "timestamp": signed_in_at},
        ])
    );
    let factor = &body["user"]["factors"][0];
    assert_eq!(factor["status"], "verified");
    assert_eq!(factor["updated_at"], "2027-01-15T08:00:30Z");
    // The AAL2 refresh token keeps minting AAL2 tokens.
    let refreshed = auth.refresh(refresh_token).await.json();
    assert_eq!(
        claims(refreshed["access_token"].as_str().unwrap())["aal"],
        "aal2"
    );
}

#[tokio::test]
async fn codes_one_period_off_are_accepted_two_are_not() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, secret) = auth.enroll_totp(&session, "app").await;
    let now = auth.now();
    for offset in [-60, 60] {
        let challenge = auth.challenge_id(&session, &factor_id).await;
        auth.verify(
            &session,
            &factor_id,
            &challenge,
            &totp_code(&secret, now + offset),
        )
        .await
        .assert_auth_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_verification_failed",
            "Invalid TOTP code entered",
        );
    }
    for offset in [-30, 0, 30] {
        let challenge = auth.challenge_id(&session, &factor_id).await;
        let response = auth
            .verify(
                &session,
                &factor_id,
                &challenge,
                &totp_code(&secret, now + offset),
            )
            .await;
        assert_eq!(
            response.status,
            StatusCode::OK,
            "offset {offset}: {}",
            response.body
        );
    }
}

#[tokio::test]
async fn a_wrong_code_leaves_the_challenge_usable() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, secret) = auth.enroll_totp(&session, "app").await;
    let challenge = auth.challenge_id(&session, &factor_id).await;
    let right = totp_code(&secret, auth.now());
    let wrong = format!("{:06}", (right.parse::<u32>().unwrap() + 1) % 1_000_000);
    for code in [wrong.as_str(), "12345", "1234567", "abcdef"] {
        auth.verify(&session, &factor_id, &challenge, code)
            .await
            .assert_auth_error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "mfa_verification_failed",
                "Invalid TOTP code entered",
            );
    }
    auth.user(
        Method::POST,
        &format!("/auth/v1/factors/{factor_id}/verify"),
        &session.access_token,
    )
    .header("x-supabase-api-version", API_VERSION)
    .json(&json!({"challenge_id": challenge, "code": wrong}))
    .send()
    .await
    .assert_current_auth_error(
        StatusCode::UNPROCESSABLE_ENTITY,
        "mfa_verification_failed",
        "Invalid TOTP code entered",
    );
    let response = auth.verify(&session, &factor_id, &challenge, &right).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
}

#[tokio::test]
async fn a_challenge_expires_after_its_lifetime() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, secret) = auth.enroll_totp(&session, "app").await;
    let on_time = auth.challenge_id(&session, &factor_id).await;
    let late = auth.challenge_id(&session, &factor_id).await;
    // Exactly 300 s later the challenge still counts.
    auth.clock.advance_seconds(300);
    let response = auth
        .verify(
            &session,
            &factor_id,
            &on_time,
            &totp_code(&secret, auth.now()),
        )
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    let aal2 = response.json()["access_token"].as_str().unwrap().to_owned();
    auth.clock.advance_micros(1);
    let verify_late = || {
        auth.user(
            Method::POST,
            &format!("/auth/v1/factors/{factor_id}/verify"),
            &aal2,
        )
        .json(&json!({"challenge_id": late, "code": totp_code(&secret, auth.now())}))
    };
    verify_late().send().await.assert_auth_error(
        StatusCode::UNPROCESSABLE_ENTITY,
        "mfa_challenge_expired",
        &format!(
            "MFA challenge {late} has expired, verify against another challenge or create a new challenge."
        ),
    );
    // An expired challenge is deleted: it is unknown from then on.
    verify_late().send().await.assert_auth_error(
        StatusCode::UNPROCESSABLE_ENTITY,
        "mfa_factor_not_found",
        "MFA factor with the provided challenge ID not found",
    );
}

#[tokio::test]
async fn a_verified_challenge_cannot_be_replayed() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (aal2, factor_id, secret) = auth.verified_totp(&session).await;
    // The next time step: the one verify_totp used is spent.
    auth.clock.advance_seconds(30);
    let first = auth.challenge_id(&aal2, &factor_id).await;
    let code = totp_code(&secret, auth.now());
    assert_eq!(
        auth.verify(&aal2, &factor_id, &first, &code).await.status,
        StatusCode::OK
    );
    auth.verify(&aal2, &factor_id, &first, &code)
        .await
        .assert_auth_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_ip_address_mismatch",
            "Challenge and verify IP addresses mismatch.",
        );
}

#[tokio::test]
async fn challenge_ids_must_belong_to_the_factor() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (first, secret) = auth.enroll_totp(&session, "first").await;
    let (second, _) = auth.enroll_totp(&session, "second").await;
    let challenge_of_second = auth.challenge_id(&session, &second).await;
    let code = totp_code(&secret, auth.now());
    for challenge in [
        challenge_of_second.as_str(),
        "6ba7b810-9dad-41d1-80b4-00c04fd430c8",
    ] {
        auth.verify(&session, &first, challenge, &code)
            .await
            .assert_auth_error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "mfa_factor_not_found",
                "MFA factor with the provided challenge ID not found",
            );
    }
    // A missing challenge_id is the nil UUID, which names no challenge.
    auth.user(
        Method::POST,
        &format!("/auth/v1/factors/{first}/verify"),
        &session.access_token,
    )
    .json(&json!({"code": code}))
    .send()
    .await
    .assert_auth_error(
        StatusCode::UNPROCESSABLE_ENTITY,
        "mfa_factor_not_found",
        "MFA factor with the provided challenge ID not found",
    );
}

#[tokio::test]
async fn malformed_verify_requests_are_refused_before_the_challenge() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, _) = auth.enroll_totp(&session, "app").await;
    let challenge = auth.challenge_id(&session, &factor_id).await;
    auth.verify(&session, &factor_id, &challenge, "")
        .await
        .assert_auth_error(
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "Code needs to be non-empty",
        );
    auth.user(
        Method::POST,
        &format!("/auth/v1/factors/{factor_id}/verify"),
        &session.access_token,
    )
    .json(&json!({"challenge_id": "abc", "code": "123456"}))
    .send()
    .await
    .assert_auth_error(
        StatusCode::BAD_REQUEST,
        "bad_json",
        "Could not parse request body as JSON: uuid: incorrect UUID length 3 in string \"abc\"",
    );
    let response = auth
        .user(
            Method::POST,
            &format!("/auth/v1/factors/{factor_id}/verify"),
            &session.access_token,
        )
        .raw_body("")
        .send()
        .await;
    assert_eq!(response.json()["error_code"], "bad_json");
}

#[tokio::test]
async fn a_phone_code_from_the_outbox_verifies_the_phone_factor() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let factor_id = auth.enroll_phone(&session, "mobile", "+15551234567").await;
    let challenge = auth.challenge_id(&session, &factor_id).await;
    let code = auth.last_sms_code().await;
    let wrong = format!("{:06}", (code.parse::<u32>().unwrap() + 1) % 1_000_000);
    auth.verify(&session, &factor_id, &challenge, &wrong)
        .await
        .assert_auth_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_verification_failed",
            "Invalid MFA Phone code entered",
        );
    let response = auth.verify(&session, &factor_id, &challenge, &code).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    let body = response.json();
    let claims = claims(body["access_token"].as_str().unwrap());
    assert_eq!(claims["aal"], "aal2");
    assert_eq!(claims["amr"][0]["method"], "mfa/phone");
    assert_eq!(body["user"]["factors"][0]["status"], "verified");
    // The code of another challenge does not verify this one.
    let next = auth.challenge_id(&session, &factor_id).await;
    let next_code = auth.last_sms_code().await;
    if next_code != code {
        let aal2 = body["access_token"].as_str().unwrap();
        let stale = auth
            .user(
                Method::POST,
                &format!("/auth/v1/factors/{factor_id}/verify"),
                aal2,
            )
            .json(&json!({"challenge_id": next, "code": code}))
            .send()
            .await;
        assert_eq!(stale.json()["msg"], "Invalid MFA Phone code entered");
    }
}

#[tokio::test]
async fn the_aal1_refresh_token_cannot_mint_aal2_tokens() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (aal2, _, _) = auth.verified_totp(&session).await;
    auth.refresh(&session.refresh_token)
        .await
        .assert_auth_error(
            StatusCode::BAD_REQUEST,
            "refresh_token_already_used",
            "Invalid Refresh Token: Already Used",
        );
    // Reuse detection then revokes the session's tokens, the AAL2 one included (GoTrue does the
    // same).
    auth.refresh(&aal2.refresh_token).await.assert_auth_error(
        StatusCode::BAD_REQUEST,
        "refresh_token_already_used",
        "Invalid Refresh Token: Already Used",
    );
}

#[tokio::test]
async fn verification_ends_lower_sessions_and_other_unverified_factors() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let other_session = auth.sign_in("walker@example.com").await;
    let stranger = auth.sign_up("stranger@example.com").await;
    let (spare_totp, _) = auth.enroll_totp(&session, "spare").await;
    let phone = auth.enroll_phone(&session, "mobile", "+15551234567").await;
    let (aal2, verified, _) = auth.verified_totp(&session).await;
    auth.get_user(&other_session.access_token)
        .await
        .assert_auth_error(
            StatusCode::FORBIDDEN,
            "session_not_found",
            "Session from session_id claim in JWT does not exist",
        );
    assert_eq!(
        auth.get_user(&stranger.access_token).await.status,
        StatusCode::OK
    );
    let ids: Vec<String> = auth.get_user(&aal2.access_token).await.json()["factors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|factor| factor["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(!ids.contains(&spare_totp));
    assert!(ids.contains(&phone) && ids.contains(&verified), "{ids:?}");
}
