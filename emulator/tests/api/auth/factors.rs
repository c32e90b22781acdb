//! `POST /auth/v1/factors` (enroll) and `DELETE /auth/v1/factors/{id}` (unenroll).

use super::support::{claims, totp_code, AuthApp, Session, API_VERSION};
use crate::support::TestResponse;
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

const STRANGER_FACTOR: &str = "6ba7b810-9dad-41d1-80b4-00c04fd430c8";

async fn unenroll(auth: &AuthApp, session: &Session, factor_id: &str) -> TestResponse {
    auth.user(
        Method::DELETE,
        &format!("/auth/v1/factors/{factor_id}"),
        &session.access_token,
    )
    // supabase-js sends a JSON content type on DELETE too, with no body.
    .header("content-type", "application/json;charset=UTF-8")
    .send()
    .await
}

async fn factors_of(auth: &AuthApp, session: &Session) -> Vec<Value> {
    auth.get_user(&session.access_token).await.json()["factors"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[tokio::test]
async fn enrolling_totp_returns_the_secret_uri_and_qr_code() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let response = auth
        .enroll(
            &session,
            json!({"factor_type": "totp", "friendly_name": "Phone app"}),
        )
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    let body = response.json();
    let id = body["id"].as_str().unwrap();
    assert_eq!(uuid::Uuid::parse_str(id).unwrap().get_version_num(), 4);
    assert_eq!(body["type"], "totp");
    assert_eq!(body["friendly_name"], "Phone app");
    let secret = body["totp"]["secret"].as_str().unwrap();
    assert_eq!(secret.len(), 32);
    assert!(secret
        .bytes()
        .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b)));
    assert_eq!(
        body["totp"]["uri"],
        format!(
            "otpauth://totp/127.0.0.1:54321:walker@example.com?algorithm=SHA1&digits=6\
             &issuer=127.0.0.1:54321&period=30&secret={secret}"
        )
    );
    let qr = body["totp"]["qr_code"].as_str().unwrap();
    assert!(
        qr.starts_with("<?xml") && qr.contains("<svg") && qr.ends_with("</svg>"),
        "{qr}"
    );
    // No `phone` key for TOTP; keys in GoTrue's order.
    assert_eq!(body.as_object().unwrap().len(), 4);
    let order: Vec<usize> = ["\"id\":", "\"type\":", "\"friendly_name\":", "\"totp\":"]
        .iter()
        .map(|key| response.body.find(key).unwrap())
        .collect();
    assert!(order.windows(2).all(|pair| pair[0] < pair[1]));

    let factors = factors_of(&auth, &session).await;
    let created = "2027-01-15T08:00:10Z";
    assert_eq!(
        factors,
        vec![json!({
            "id": id,
            "created_at": created,
            "updated_at": created,
            "status": "unverified",
            "friendly_name": "Phone app",
            "factor_type": "totp",
            "phone": "",
            "last_challenged_at": null,
        })]
    );
}

#[tokio::test]
async fn the_issuer_may_be_chosen_and_is_escaped() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let body = auth
        .enroll(
            &session,
            json!({"factor_type": "totp", "issuer": "Geo Cache & Co"}),
        )
        .await
        .json();
    let uri = body["totp"]["uri"].as_str().unwrap();
    assert!(
        uri.starts_with("otpauth://totp/Geo%20Cache%20&%20Co:walker@example.com?algorithm=SHA1&digits=6&issuer=Geo%20Cache%20&%20Co&period=30&secret="),
        "{uri}"
    );
    // An unnamed factor has "" as its name, which the response shows and the factor JSON omits.
    assert_eq!(body["friendly_name"], "");
    assert!(factors_of(&auth, &session).await[0]
        .get("friendly_name")
        .is_none());
}

#[tokio::test]
async fn the_secret_generates_codes_the_server_accepts() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, secret) = auth.enroll_totp(&session, "app").await;
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
}

#[tokio::test]
async fn enrolling_a_phone_keeps_the_number_as_typed_in_the_answer() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let response = auth
        .enroll(
            &session,
            json!({"factor_type": "phone", "friendly_name": "Mobile", "phone": "+1 555 123 4567"}),
        )
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    let body = response.json();
    assert_eq!(
        body,
        json!({"id": body["id"], "type": "phone", "friendly_name": "Mobile", "phone": "+1 555 123 4567"})
    );
    let factors = factors_of(&auth, &session).await;
    assert_eq!(factors[0]["phone"], "15551234567");
    assert_eq!(factors[0]["factor_type"], "phone");
}

#[tokio::test]
async fn invalid_enrolments_fail_as_gotrue_does() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let cases = [
        (
            json!({"factor_type": "sms"}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "factor_type needs to be totp, phone, or webauthn",
        ),
        (
            json!({}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "factor_type needs to be totp, phone, or webauthn",
        ),
        (
            json!({"factor_type": "webauthn"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_webauthn_enroll_not_enabled",
            "MFA enroll is disabled for WebAuthn",
        ),
        (
            json!({"factor_type": "phone"}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "Phone number required to enroll Phone factor",
        ),
        (
            json!({"factor_type": "phone", "phone": "+0123"}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "Invalid phone number format (E.164 required)",
        ),
    ];
    for (body, status, code, message) in cases {
        auth.enroll(&session, body)
            .await
            .assert_auth_error(status, code, message);
    }
    let response = auth
        .user(Method::POST, "/auth/v1/factors", &session.access_token)
        .raw_body("{not json")
        .send()
        .await;
    assert_eq!(response.status, StatusCode::BAD_REQUEST);
    assert_eq!(response.json()["error_code"], "bad_json");
    assert!(factors_of(&auth, &session).await.is_empty());
}

#[tokio::test]
async fn friendly_names_are_unique_per_user() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let other = auth.sign_up("other@example.com").await;
    auth.enroll_totp(&session, "<b>Phone</b>").await;
    auth.enroll_totp(&other, "<b>Phone</b>").await;
    auth.enroll(
        &session,
        json!({"factor_type": "phone", "phone": "+15551234567", "friendly_name": "<b>Phone</b>"}),
    )
    .await
    .assert_auth_error(
        StatusCode::UNPROCESSABLE_ENTITY,
        "mfa_factor_name_conflict",
        "A factor with the friendly name \"<b>Phone</b>\" for this user already exists",
    );
    // Two unnamed factors collide on "" (GoTrue behaves the same).
    auth.enroll_totp(&session, "").await;
    auth.enroll(&session, json!({"factor_type": "totp"}))
        .await
        .assert_auth_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_factor_name_conflict",
            "A factor with the friendly name \"\" for this user already exists",
        );
}

#[tokio::test]
async fn a_user_has_at_most_ten_factors() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    for index in 0..10 {
        auth.enroll_totp(&session, &format!("factor {index}")).await;
    }
    auth.enroll(
        &session,
        json!({"factor_type": "totp", "friendly_name": "eleventh"}),
    )
    .await
    .assert_auth_error(
        StatusCode::UNPROCESSABLE_ENTITY,
        "too_many_enrolled_mfa_factors",
        "Maximum number of verified factors reached, unenroll to continue",
    );
}

#[tokio::test]
async fn unverified_enrolments_expire_five_minutes_after_enrolment_or_their_latest_challenge() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    auth.enroll_totp(&session, "abandoned").await;
    let (challenged, _) = auth.enroll_totp(&session, "challenged").await;
    auth.clock.advance_seconds(200);
    auth.challenge_id(&session, &challenged).await;
    auth.clock.advance_seconds(100);
    // Not yet: exactly five minutes old.
    auth.enroll(
        &session,
        json!({"factor_type": "totp", "friendly_name": "abandoned"}),
    )
    .await
    .assert_auth_error(
        StatusCode::UNPROCESSABLE_ENTITY,
        "mfa_factor_name_conflict",
        "A factor with the friendly name \"abandoned\" for this user already exists",
    );
    auth.clock.advance_seconds(1);
    auth.enroll_totp(&session, "abandoned").await;
    let names: Vec<Value> = factors_of(&auth, &session)
        .await
        .iter()
        .map(|factor| factor["friendly_name"].clone())
        .collect();
    assert_eq!(names, [json!("challenged"), json!("abandoned")]);
    // Five minutes after its challenge the other one is gone too, even without a new
    // enrolment to sweep it: it can no longer be challenged.
    auth.clock.advance_seconds(200);
    auth.challenge(&session, &challenged, json!({}))
        .await
        .assert_auth_error(
            StatusCode::NOT_FOUND,
            "mfa_factor_not_found",
            "Factor not found",
        );
}

#[tokio::test]
async fn a_second_factor_needs_aal2_once_one_is_verified() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (aal2, _, _) = auth.verified_totp(&session).await;
    let aal1 = auth.sign_in("walker@example.com").await;
    auth.enroll(
        &aal1,
        json!({"factor_type": "totp", "friendly_name": "second"}),
    )
    .await
    .assert_auth_error(
        StatusCode::FORBIDDEN,
        "insufficient_aal",
        "AAL2 required to enroll a new factor",
    );
    auth.enroll_totp(&aal2, "second").await;
}

#[tokio::test]
async fn phone_factors_are_one_per_verified_number() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let first = auth.enroll_phone(&session, "one", "+15551234567").await;
    // An unverified factor for the same number is replaced.
    let second = auth.enroll_phone(&session, "two", "+1 555 123 4567").await;
    let factors = factors_of(&auth, &session).await;
    assert_eq!(factors.len(), 1);
    assert_eq!(factors[0]["id"], second.as_str());
    assert_ne!(first, second);
    // Verified, it blocks new enrolments of the number.
    let challenge = auth.challenge_id(&session, &second).await;
    let code = auth.last_sms_code().await;
    let verified = auth.verify(&session, &second, &challenge, &code).await;
    assert_eq!(verified.status, StatusCode::OK, "{}", verified.body);
    let aal2 = verified.json()["access_token"].as_str().unwrap().to_owned();
    auth.user(Method::POST, "/auth/v1/factors", &aal2)
        .json(&json!({"factor_type": "phone", "friendly_name": "three", "phone": "+15551234567"}))
        .send()
        .await
        .assert_auth_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_verified_factor_exists",
            "A verified phone factor already exists, unenroll the existing factor to continue",
        );
}

#[tokio::test]
async fn unenrolling_an_unverified_factor_needs_no_aal2() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, _) = auth.enroll_totp(&session, "app").await;
    let response = unenroll(&auth, &session, &factor_id).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    assert_eq!(response.body, json!({"id": factor_id}).to_string());
    assert!(factors_of(&auth, &session).await.is_empty());
    unenroll(&auth, &session, &factor_id)
        .await
        .assert_auth_error(
            StatusCode::NOT_FOUND,
            "mfa_factor_not_found",
            "Factor not found",
        );
}

#[tokio::test]
async fn unenrolling_a_verified_factor_needs_aal2_and_downgrades_its_sessions() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (aal2, factor_id, _) = auth.verified_totp(&session).await;
    let aal1 = auth.sign_in("walker@example.com").await;
    unenroll(&auth, &aal1, &factor_id).await.assert_auth_error(
        StatusCode::UNPROCESSABLE_ENTITY,
        "insufficient_aal",
        "AAL2 required to unenroll verified factor",
    );
    let response = unenroll(&auth, &aal2, &factor_id).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    // The session that the factor raised is AAL1 again: the next token says so.
    let refreshed = auth.refresh(&aal2.refresh_token).await.json();
    let claims = claims(refreshed["access_token"].as_str().unwrap());
    assert_eq!(claims["aal"], "aal1");
    let methods: Vec<&str> = claims["amr"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["password"]);
    assert!(refreshed["user"].get("factors").is_none());
}

#[tokio::test]
async fn factor_ids_must_be_uuids_of_the_callers_factors() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let stranger = auth.sign_up("stranger@example.com").await;
    let (strangers_factor, _) = auth.enroll_totp(&stranger, "theirs").await;
    for id in [STRANGER_FACTOR, strangers_factor.as_str()] {
        unenroll(&auth, &session, id).await.assert_auth_error(
            StatusCode::NOT_FOUND,
            "mfa_factor_not_found",
            "Factor not found",
        );
        auth.challenge(&session, id, json!({}))
            .await
            .assert_auth_error(
                StatusCode::NOT_FOUND,
                "mfa_factor_not_found",
                "Factor not found",
            );
        auth.verify(&session, id, STRANGER_FACTOR, "123456")
            .await
            .assert_auth_error(
                StatusCode::NOT_FOUND,
                "mfa_factor_not_found",
                "Factor not found",
            );
    }
    for id in ["not-a-uuid", "%3Cscript%3E"] {
        unenroll(&auth, &session, id).await.assert_auth_error(
            StatusCode::NOT_FOUND,
            "validation_failed",
            "factor_id must be an UUID",
        );
    }
    auth.user(
        Method::DELETE,
        &format!("/auth/v1/factors/{STRANGER_FACTOR}"),
        &session.access_token,
    )
    .header("x-supabase-api-version", API_VERSION)
    .send()
    .await
    .assert_current_auth_error(
        StatusCode::NOT_FOUND,
        "mfa_factor_not_found",
        "Factor not found",
    );
    // The stranger's factor is still there.
    assert_eq!(factors_of(&auth, &stranger).await.len(), 1);
}

#[tokio::test]
async fn factor_routes_need_a_signed_in_non_anonymous_user() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, _) = auth.enroll_totp(&session, "app").await;
    let routes = [
        (Method::POST, "/auth/v1/factors".to_owned()),
        (Method::DELETE, format!("/auth/v1/factors/{factor_id}")),
        (
            Method::POST,
            format!("/auth/v1/factors/{factor_id}/challenge"),
        ),
        (Method::POST, format!("/auth/v1/factors/{factor_id}/verify")),
    ];
    let mut anonymous = session.claims();
    anonymous["is_anonymous"] = json!(true);
    let anonymous = auth.app.state.keys.sign(&anonymous);
    for (method, path) in routes {
        auth.app
            .bare(method.clone(), &path)
            .header("apikey", &auth.app.anon)
            .json(&json!({}))
            .send()
            .await
            .assert_auth_error(
                StatusCode::UNAUTHORIZED,
                "no_authorization",
                "This endpoint requires a valid Bearer token",
            );
        auth.user(method.clone(), &path, &anonymous)
            .json(&json!({}))
            .send()
            .await
            .assert_auth_error(
                StatusCode::FORBIDDEN,
                "no_authorization",
                "Anonymous user not allowed to perform these actions",
            );
        // The anon key is not a user.
        auth.user(method, &path, &auth.app.anon)
            .json(&json!({}))
            .send()
            .await
            .assert_auth_error(
                StatusCode::FORBIDDEN,
                "bad_jwt",
                "invalid claim: missing sub claim",
            );
    }
}
