//! `POST /auth/v1/factors/{id}/challenge` and the SMS outbox it writes to.

use super::support::{AuthApp, API_VERSION};
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn a_totp_challenge_lives_five_minutes() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, _) = auth.enroll_totp(&session, "app").await;
    auth.clock.advance_seconds(7);
    // supabase-js sends the params object itself; a TOTP challenge does not read the body.
    let response = auth
        .challenge(&session, &factor_id, json!({"factorId": factor_id}))
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    let body = response.json();
    let id = body["id"].as_str().unwrap();
    assert_eq!(uuid::Uuid::parse_str(id).unwrap().get_version_num(), 4);
    assert_eq!(
        response.body,
        format!(
            r#"{{"id":"{id}","type":"totp","expires_at":{}}}"#,
            auth.now() + 300
        )
    );
    let factor = &auth.get_user(&session.access_token).await.json()["factors"][0];
    assert_eq!(factor["last_challenged_at"], "2027-01-15T08:00:17Z");
    assert_eq!(factor["updated_at"], "2027-01-15T08:00:17Z");
    let garbage = auth
        .user(
            Method::POST,
            &format!("/auth/v1/factors/{factor_id}/challenge"),
            &session.access_token,
        )
        .raw_body("not json")
        .send()
        .await;
    assert_eq!(garbage.status, StatusCode::OK, "{}", garbage.body);
    assert_eq!(auth.outbox().await, Vec::<serde_json::Value>::new());
}

#[tokio::test]
async fn the_challenge_lifetime_is_configurable() {
    let auth = AuthApp::with_settings(|settings| settings.challenge_expiry = 2);
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, _) = auth.enroll_totp(&session, "app").await;
    let body = auth.challenge(&session, &factor_id, json!({})).await.json();
    assert_eq!(body["expires_at"], auth.now() + 2);
}

#[tokio::test]
async fn a_phone_challenge_sends_a_six_digit_code_to_the_outbox() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let factor_id = auth
        .enroll_phone(&session, "mobile", "+1 555 123 4567")
        .await;
    let first = auth
        .challenge(
            &session,
            &factor_id,
            json!({"factorId": factor_id, "channel": "sms"}),
        )
        .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert_eq!(first.json()["type"], "phone");
    auth.clock.advance_seconds(2);
    let second = auth
        .challenge(&session, &factor_id, json!({"channel": "whatsapp"}))
        .await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.body);
    let outbox = auth.outbox().await;
    assert_eq!(outbox.len(), 2);
    for (message, sent_at) in outbox
        .iter()
        .zip(["2027-01-15T08:00:10Z", "2027-01-15T08:00:12Z"])
    {
        assert_eq!(message.as_object().unwrap().len(), 3);
        assert_eq!(message["phone"], "+15551234567");
        assert_eq!(message["sent_at"], sent_at);
        let body = message["body"].as_str().unwrap();
        let code = body.strip_prefix("Your code is ").unwrap();
        assert_eq!(code.len(), 6);
        assert!(code.bytes().all(|byte| byte.is_ascii_digit()), "{body}");
    }
}

#[tokio::test]
async fn phone_challenges_read_their_body() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let factor_id = auth.enroll_phone(&session, "mobile", "+15551234567").await;
    auth.challenge(&session, &factor_id, json!({"channel": "pigeon"}))
        .await
        .assert_auth_error(
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.",
        );
    let response = auth
        .user(
            Method::POST,
            &format!("/auth/v1/factors/{factor_id}/challenge"),
            &session.access_token,
        )
        .header("x-supabase-api-version", API_VERSION)
        .raw_body("{")
        .send()
        .await;
    assert_eq!(response.status, StatusCode::BAD_REQUEST);
    assert_eq!(response.json()["code"], "bad_json");
    assert!(auth.outbox().await.is_empty());
}

#[tokio::test]
async fn the_outbox_needs_the_service_role_key() {
    let auth = AuthApp::new();
    let anon = auth
        .app
        .bare(Method::GET, "/emulator/v1/sms")
        .header("apikey", &auth.app.anon)
        .send()
        .await;
    assert_eq!(anon.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        anon.json()["message"],
        "This endpoint requires the service_role key"
    );
    let none = auth.app.bare(Method::GET, "/emulator/v1/sms").send().await;
    assert_eq!(none.status, StatusCode::UNAUTHORIZED);
    assert_eq!(none.json()["message"], "No API key found in request");
    // A user's token is not a key.
    let session = auth.sign_up("walker@example.com").await;
    let user = auth
        .app
        .bare(Method::GET, "/emulator/v1/sms")
        .header("apikey", &session.access_token)
        .send()
        .await;
    assert_eq!(user.status, StatusCode::UNAUTHORIZED);
    assert_eq!(auth.outbox().await, Vec::<serde_json::Value>::new());
}
