//! `client.auth.mfa` in headless Chromium against the emulator: TOTP and phone factors end to
//! end, the assurance level, and the refusals (wrong code, expired and replayed challenges).
//!
//! The emulator must run with a short challenge lifetime (`--mfa-challenge-expiry 3`) for the
//! expiry test; see `support::emulator`.
#![cfg(all(target_arch = "wasm32", feature = "auth"))]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod support;

use geocache_client::Client;
use support::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

async fn signed_in_client() -> (Client, String) {
    let key = unique("sb-test-");
    let client = client(&key);
    sign_up(&client).await;
    (client, key)
}

fn totp_params() -> JsValue {
    object(&[
        ("factorType", "totp".into()),
        ("friendlyName", unique("app ").into()),
        ("issuer", "geocache".into()),
    ])
}

/// Enrols a TOTP factor; returns (factor id, secret).
async fn enroll_totp(client: &Client) -> (String, String) {
    let enrolled = data(client.auth().mfa().enroll(totp_params()).await);
    (string(&enrolled, "id"), string(&enrolled, "totp.secret"))
}

fn factor_id(id: &str) -> JsValue {
    object(&[("factorId", id.into())])
}

async fn challenge(client: &Client, factor: &str) -> JsValue {
    data(client.auth().mfa().challenge(factor_id(factor)).await)
}

fn verify_params(factor: &str, challenge: &str, code: &str) -> JsValue {
    object(&[
        ("factorId", factor.into()),
        ("challengeId", challenge.into()),
        ("code", code.into()),
    ])
}

fn ids(list: &JsValue) -> Vec<String> {
    array(list.clone())
        .iter()
        .map(|factor| string(factor, "id"))
        .collect()
}

#[wasm_bindgen_test]
async fn totp_enrol_challenge_verify_reaches_aal2_and_unenrols() {
    let (client, key) = signed_in_client().await;
    let mfa = client.auth().mfa();
    let events = subscribe(&client);

    let level = data(mfa.get_authenticator_assurance_level(None).await);
    assert_eq!(string(&level, "currentLevel"), "aal1");
    assert_eq!(string(&level, "nextLevel"), "aal1");
    let methods = array(get(&level, "currentAuthenticationMethods"));
    assert_eq!(string(&methods[0], "method"), "password");

    let params = totp_params();
    let name = string(&params, "friendlyName");
    let enrolled = data(mfa.enroll(params).await);
    assert_eq!(string(&enrolled, "type"), "totp");
    assert_eq!(string(&enrolled, "friendly_name"), name);
    let qr_code = string(&enrolled, "totp.qr_code");
    assert!(
        qr_code.starts_with("data:image/svg+xml;utf-8,<") && qr_code.contains("<svg"),
        "{}",
        &qr_code[..60.min(qr_code.len())]
    );
    let secret = string(&enrolled, "totp.secret");
    assert_eq!(secret.len(), 32);
    assert!(secret
        .chars()
        .all(|c| c.is_ascii_uppercase() || ('2'..='7').contains(&c)));
    let uri = string(&enrolled, "totp.uri");
    assert!(uri.starts_with("otpauth://totp/geocache:"), "{uri}");
    assert!(uri.contains(&format!("secret={secret}")));
    let factor = string(&enrolled, "id");

    let listed = data(mfa.list_factors().await);
    assert_eq!(ids(&get(&listed, "all")), std::slice::from_ref(&factor));
    assert_eq!(
        string(&array(get(&listed, "all"))[0], "status"),
        "unverified"
    );
    assert!(ids(&get(&listed, "totp")).is_empty());

    let challenged = challenge(&client, &factor).await;
    assert_eq!(string(&challenged, "type"), "totp");
    assert!(number(&challenged, "expires_at") > js_sys::Date::now() / 1000.0);
    let verified = data(
        mfa.verify(verify_params(
            &factor,
            &string(&challenged, "id"),
            &totp_code(&secret),
        ))
        .await,
    );
    let access_token = string(&verified, "access_token");
    assert_eq!(string(&verified, "token_type"), "bearer");
    assert!(get(&verified, "user").is_object());
    assert_eq!(string(&stored(&key).unwrap(), "access_token"), access_token);
    wait_until("MFA_CHALLENGE_VERIFIED", 2000, || {
        event_names(&events).contains(&"MFA_CHALLENGE_VERIFIED".to_owned())
    })
    .await;

    let level = data(mfa.get_authenticator_assurance_level(None).await);
    assert_eq!(string(&level, "currentLevel"), "aal2");
    assert_eq!(string(&level, "nextLevel"), "aal2");
    let methods: Vec<String> = array(get(&level, "currentAuthenticationMethods"))
        .iter()
        .map(|entry| string(entry, "method"))
        .collect();
    assert!(methods.contains(&"totp".to_owned()), "{methods:?}");
    // With an explicit JWT the level is read from it and the user fetched from the server.
    let by_jwt = data(
        mfa.get_authenticator_assurance_level(Some(access_token))
            .await,
    );
    assert_eq!(string(&by_jwt, "currentLevel"), "aal2");

    let listed = data(mfa.list_factors().await);
    assert_eq!(ids(&get(&listed, "totp")), std::slice::from_ref(&factor));
    assert_eq!(string(&array(get(&listed, "all"))[0], "status"), "verified");
    assert!(ids(&get(&listed, "phone")).is_empty());

    let removed = data(mfa.unenroll(factor_id(&factor)).await);
    assert_eq!(string(&removed, "id"), factor);
    let listed = data(mfa.list_factors().await);
    assert!(ids(&get(&listed, "all")).is_empty());
}

#[wasm_bindgen_test]
async fn challenge_and_verify_in_one_call() {
    let (client, _) = signed_in_client().await;
    let (factor, secret) = enroll_totp(&client).await;
    let params = object(&[
        ("factorId", factor.as_str().into()),
        ("code", totp_code(&secret).into()),
    ]);
    let verified = data(client.auth().mfa().challenge_and_verify(params).await);
    assert!(get(&verified, "refresh_token").is_string());
    let level = data(
        client
            .auth()
            .mfa()
            .get_authenticator_assurance_level(None)
            .await,
    );
    assert_eq!(string(&level, "currentLevel"), "aal2");
}

#[wasm_bindgen_test]
async fn a_wrong_code_is_refused() {
    let (client, _) = signed_in_client().await;
    let (factor, secret) = enroll_totp(&client).await;
    let challenged = challenge(&client, &factor).await;
    let right = totp_code(&secret);
    let wrong = if right == "000000" {
        "111111"
    } else {
        "000000"
    };
    let result = auth_error(
        client
            .auth()
            .mfa()
            .verify(verify_params(&factor, &string(&challenged, "id"), wrong))
            .await,
        "AuthApiError",
        Some("mfa_verification_failed"),
        Some(422),
    );
    assert_eq!(
        string(&result, "error.message"),
        "Invalid TOTP code entered"
    );
    assert!(get(&result, "data").is_null());
    let level = data(
        client
            .auth()
            .mfa()
            .get_authenticator_assurance_level(None)
            .await,
    );
    assert_eq!(string(&level, "currentLevel"), "aal1");
}

#[wasm_bindgen_test]
async fn a_verified_challenge_cannot_be_replayed() {
    let (client, _) = signed_in_client().await;
    let (factor, secret) = enroll_totp(&client).await;
    let challenged = string(&challenge(&client, &factor).await, "id");
    let code = totp_code(&secret);
    data(
        client
            .auth()
            .mfa()
            .verify(verify_params(&factor, &challenged, &code))
            .await,
    );
    auth_error(
        client
            .auth()
            .mfa()
            .verify(verify_params(&factor, &challenged, &code))
            .await,
        "AuthApiError",
        Some("mfa_ip_address_mismatch"),
        Some(422),
    );
}

#[wasm_bindgen_test]
async fn an_expired_challenge_is_refused() {
    let (client, _) = signed_in_client().await;
    let (factor, secret) = enroll_totp(&client).await;
    let challenged = challenge(&client, &factor).await;
    let lifetime_ms = number(&challenged, "expires_at") * 1000.0 - js_sys::Date::now();
    assert!(
        lifetime_ms < 10_000.0,
        "challenges live {lifetime_ms} ms: start the emulator with --mfa-challenge-expiry 3"
    );
    sleep((lifetime_ms.max(0.0) + 1500.0) as u32).await;
    let id = string(&challenged, "id");
    let result = auth_error(
        client
            .auth()
            .mfa()
            .verify(verify_params(&factor, &id, &totp_code(&secret)))
            .await,
        "AuthApiError",
        Some("mfa_challenge_expired"),
        Some(422),
    );
    assert_eq!(
        string(&result, "error.message"),
        format!(
            "MFA challenge {id} has expired, verify against another challenge or create a new challenge."
        )
    );
}

#[wasm_bindgen_test]
async fn a_phone_factor_is_verified_with_the_code_from_the_sms_outbox() {
    let (client, _) = signed_in_client().await;
    let mfa = client.auth().mfa();
    let phone = unique_phone();
    let params = object(&[
        ("factorType", "phone".into()),
        ("friendlyName", unique("mobile ").into()),
        ("phone", phone.as_str().into()),
    ]);
    let enrolled = data(mfa.enroll(params).await);
    assert_eq!(string(&enrolled, "type"), "phone");
    assert_eq!(string(&enrolled, "phone"), phone);
    assert!(get(&enrolled, "totp").is_undefined());
    let factor = string(&enrolled, "id");

    // A wrong code first, on a challenge of its own.
    let params = object(&[
        ("factorId", factor.as_str().into()),
        ("channel", "sms".into()),
    ]);
    let challenged = data(mfa.challenge(params).await);
    assert_eq!(string(&challenged, "type"), "phone");
    let code = sms_code(&phone).await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let id = string(&challenged, "id");
    let result = auth_error(
        mfa.verify(verify_params(&factor, &id, wrong)).await,
        "AuthApiError",
        Some("mfa_verification_failed"),
        Some(422),
    );
    assert_eq!(
        string(&result, "error.message"),
        "Invalid MFA Phone code entered"
    );

    let params = object(&[
        ("factorId", factor.as_str().into()),
        ("channel", "sms".into()),
    ]);
    let challenged = data(mfa.challenge(params).await);
    let code = sms_code(&phone).await;
    data(
        mfa.verify(verify_params(&factor, &string(&challenged, "id"), &code))
            .await,
    );
    let level = data(mfa.get_authenticator_assurance_level(None).await);
    assert_eq!(string(&level, "currentLevel"), "aal2");
    let listed = data(mfa.list_factors().await);
    assert_eq!(ids(&get(&listed, "phone")), [factor]);
    let messages = sms_outbox().await;
    let last = messages.last().expect("messages");
    assert!(get(last, "sent_at").is_string());
}

#[wasm_bindgen_test]
async fn unknown_factors_are_not_found_and_ids_stay_one_path_segment() {
    let (client, _) = signed_in_client().await;
    let mfa = client.auth().mfa();
    auth_error(
        mfa.challenge(factor_id("5d0b8c41-7a1e-4a4c-9e5f-0c2b8a3d9e11"))
            .await,
        "AuthApiError",
        Some("mfa_factor_not_found"),
        Some(404),
    );
    // Had the id climbed out of its segment this would reach another route (or the user).
    for id in ["../../user", "a/b", "x?y#z"] {
        auth_error(
            mfa.unenroll(factor_id(id)).await,
            "AuthApiError",
            Some("validation_failed"),
            Some(404),
        );
    }
}

#[wasm_bindgen_test]
async fn without_a_session_mfa_is_refused_by_the_server_and_the_level_is_empty() {
    let client = client(&unique("sb-test-"));
    let mfa = client.auth().mfa();
    let result = auth_error(
        mfa.enroll(totp_params()).await,
        "AuthApiError",
        Some("bad_jwt"),
        Some(403),
    );
    assert!(get(&result, "data").is_null());
    let level = data(mfa.get_authenticator_assurance_level(None).await);
    assert!(get(&level, "currentLevel").is_null() && get(&level, "nextLevel").is_null());
    assert!(array(get(&level, "currentAuthenticationMethods")).is_empty());
    auth_error(
        mfa.list_factors().await,
        "AuthSessionMissingError",
        None,
        Some(400),
    );
}

#[wasm_bindgen_test]
async fn malformed_mfa_params_are_type_errors() {
    let (client, _) = signed_in_client().await;
    let mfa = client.auth().mfa();
    let webauthn = object(&[("factorType", "webauthn".into())]);
    let no_phone = object(&[("factorType", "phone".into())]);
    for params in [webauthn, no_phone, JsValue::UNDEFINED] {
        let error = mfa.enroll(params).await.expect_err("refused");
        let error = JsValue::from(error);
        assert!(error.is_instance_of::<js_sys::TypeError>());
        assert!(string(&error, "message").starts_with("invalid params: "));
    }
    let fax = object(&[("factorId", "f".into()), ("channel", "fax".into())]);
    assert!(mfa.challenge(fax).await.is_err());
}
