//! `POST /auth/v1/signup`.

use super::support::{claims, AuthApp, API_URL, API_VERSION, PASSWORD};
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

const SIGNUP: &str = "/auth/v1/signup";

#[tokio::test]
async fn sign_up_answers_with_a_session_for_the_confirmed_user() {
    let auth = AuthApp::new();
    let now = auth.now();
    let response = auth
        .anon(Method::POST, SIGNUP)
        .json(&json!({
            "email": "Visitor@Example.com",
            "password": PASSWORD,
            "data": {"nickname": "Trail Blazer"},
            "gotrue_meta_security": {},
            "code_challenge": null,
            "code_challenge_method": null,
        }))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    assert_eq!(response.header("content-type"), Some("application/json"));
    let body = response.json();
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        sorted(keys),
        [
            "access_token",
            "expires_at",
            "expires_in",
            "refresh_token",
            "token_type",
            "user"
        ]
    );
    assert_eq!(body["token_type"], "bearer");
    assert_eq!(body["expires_in"], 3600);
    assert_eq!(body["expires_at"], now + 3600);
    let refresh_token = body["refresh_token"].as_str().unwrap();
    assert_eq!(refresh_token.len(), 12);

    let user = &body["user"];
    let id = user["id"].as_str().unwrap();
    let created = "2027-01-15T08:00:10Z";
    assert_eq!(
        user,
        &json!({
            "id": id,
            "aud": "authenticated",
            "role": "authenticated",
            "email": "visitor@example.com",
            "email_confirmed_at": created,
            "phone": "",
            "confirmed_at": created,
            "last_sign_in_at": created,
            "app_metadata": {"provider": "email", "providers": ["email"]},
            "user_metadata": {
                "email": "visitor@example.com",
                "email_verified": true,
                "nickname": "Trail Blazer",
                "phone_verified": false,
                "sub": id,
            },
            "identities": [{
                "identity_id": user["identities"][0]["identity_id"],
                "id": id,
                "user_id": id,
                "identity_data": {
                    "email": "visitor@example.com",
                    "email_verified": false,
                    "phone_verified": false,
                    "sub": id,
                },
                "provider": "email",
                "last_sign_in_at": created,
                "created_at": created,
                "updated_at": created,
                "email": "visitor@example.com",
            }],
            "created_at": created,
            "updated_at": created,
            "is_anonymous": false,
        })
    );
    // No factors yet: the key is left out, as GoTrue does.
    assert!(!response.body.contains("\"factors\""));
    // GoTrue's field order.
    let order = [
        "\"id\"",
        "\"aud\"",
        "\"role\"",
        "\"email\"",
        "\"email_confirmed_at\"",
        "\"phone\"",
        "\"confirmed_at\"",
        "\"last_sign_in_at\"",
        "\"app_metadata\"",
        "\"user_metadata\"",
        "\"identities\"",
        "\"created_at\"",
        "\"updated_at\"",
        "\"is_anonymous\"",
    ];
    let user_text = &response.body[response.body.find("\"user\":").unwrap()..];
    let positions: Vec<usize> = order
        .iter()
        .map(|key| user_text.find(key).unwrap())
        .collect();
    assert!(
        positions.windows(2).all(|pair| pair[0] < pair[1]),
        "{user_text}"
    );

    let claims = claims(body["access_token"].as_str().unwrap());
    let session_id = claims["session_id"].as_str().unwrap();
    assert_eq!(
        uuid::Uuid::parse_str(session_id).unwrap().get_version_num(),
        4
    );
    assert_eq!(
        claims,
        json!({
            "iss": format!("{API_URL}/auth/v1"),
            "sub": id,
            "aud": "authenticated",
            "exp": now + 3600,
            "iat": now,
            "email": "visitor@example.com",
            "phone": "",
            "app_metadata": {"provider": "email", "providers": ["email"]},
            "user_metadata": user["user_metadata"],
            "role": "authenticated",
            "aal": "aal1",
            "amr": [{"method": "password", "timestamp": now}],
            "session_id": session_id,
            "is_anonymous": false,
        })
    );
}

fn sorted(mut keys: Vec<&str>) -> Vec<&str> {
    keys.sort_unstable();
    keys
}

#[tokio::test]
async fn the_access_token_is_signed_with_the_jwt_secret() {
    let auth = AuthApp::new();
    let session = auth.sign_up("signed@example.com").await;
    let verified = auth
        .app
        .state
        .keys
        .verify(&session.access_token, auth.now())
        .unwrap();
    assert_eq!(verified["role"], "authenticated");
    let header = session.access_token.split('.').next().unwrap();
    assert_eq!(header, "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9");
}

#[tokio::test]
async fn hostile_metadata_is_stored_byte_for_byte() {
    let auth = AuthApp::new();
    let data = json!({
        "bio": "<script>alert('x')</script>",
        "rtl": "\u{202e}gnp.exe",
        "emoji": "🧭 Ünïcödé",
        "nested": {"list": [1, null, true]},
        "big": "x".repeat(100_000),
    });
    let response = auth
        .anon(Method::POST, SIGNUP)
        .json(&json!({"email": "hostile@example.com", "password": PASSWORD, "data": data}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    let token = response.json()["access_token"].as_str().unwrap().to_owned();
    let user = auth.get_user(&token).await.json();
    for (key, value) in data.as_object().unwrap() {
        assert_eq!(&user["user_metadata"][key], value, "{key}");
    }
}

#[tokio::test]
async fn an_existing_email_is_refused_in_any_case() {
    let auth = AuthApp::new();
    auth.sign_up("taken@example.com").await;
    let again = |email: &'static str| {
        auth.anon(Method::POST, SIGNUP)
            .json(&json!({"email": email, "password": "another password"}))
    };
    again("taken@example.com").send().await.assert_auth_error(
        StatusCode::UNPROCESSABLE_ENTITY,
        "user_already_exists",
        "User already registered",
    );
    again("TAKEN@example.com")
        .header("x-supabase-api-version", API_VERSION)
        .send()
        .await
        .assert_current_auth_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "user_already_exists",
            "User already registered",
        );
}

#[tokio::test]
async fn weak_passwords_are_refused_with_reasons() {
    let auth = AuthApp::new();
    let request = || {
        auth.anon(Method::POST, SIGNUP)
            .json(&json!({"email": "weak@example.com", "password": "12345"}))
    };
    let legacy = request().send().await;
    assert_eq!(legacy.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        legacy.body,
        r#"{"code":422,"error_code":"weak_password","msg":"Password should be at least 6 characters.","weak_password":{"reasons":["length"]}}"#
    );
    assert_eq!(legacy.header("x-sb-error-code"), Some("weak_password"));
    let current = request()
        .header("x-supabase-api-version", API_VERSION)
        .send()
        .await;
    assert_eq!(
        current.body,
        r#"{"code":"weak_password","message":"Password should be at least 6 characters.","weak_password":{"reasons":["length"]}}"#
    );
    // GoTrue omits the code header on this one answer.
    assert_eq!(current.header("x-sb-error-code"), None);
    assert_eq!(current.header("x-supabase-api-version"), Some(API_VERSION));
}

#[tokio::test]
async fn invalid_sign_ups_fail_as_gotrue_does() {
    let auth = AuthApp::new();
    let cases: [(Value, StatusCode, &str, &str); 8] = [
        (
            json!({"email": "a@example.com"}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "Signup requires a valid password",
        ),
        (
            json!({"email": "a@example.com", "password": ""}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "Signup requires a valid password",
        ),
        (
            json!({"email": "a@example.com", "password": "x".repeat(73)}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "Password cannot be longer than 72 characters",
        ),
        (
            json!({"password": PASSWORD}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "anonymous_provider_disabled",
            "Anonymous sign-ins are disabled",
        ),
        (
            json!({"phone": "+15551234567", "password": PASSWORD}),
            StatusCode::BAD_REQUEST,
            "phone_provider_disabled",
            "Phone signups are disabled",
        ),
        (
            json!({"email": "a@example.com", "phone": "+15551234567", "password": PASSWORD}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "Only an email address or phone number should be provided on signup.",
        ),
        (
            json!({"email": "not-an-address", "password": PASSWORD}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "Unable to validate email address: invalid format",
        ),
        (
            json!({"email": format!("{}@example.com", "a".repeat(250)), "password": PASSWORD}),
            StatusCode::BAD_REQUEST,
            "validation_failed",
            "An email address is too long",
        ),
    ];
    for (body, status, code, message) in cases {
        auth.anon(Method::POST, SIGNUP)
            .json(&body)
            .send()
            .await
            .assert_auth_error(status, code, message);
    }
}

#[tokio::test]
async fn bodies_that_are_not_json_are_bad_json() {
    let auth = AuthApp::new();
    for body in ["", "{", "[]", r#"{"email": 5}"#, r#"{"data": [1]}"#] {
        let response = auth.anon(Method::POST, SIGNUP).raw_body(body).send().await;
        assert_eq!(response.status, StatusCode::BAD_REQUEST, "{body}");
        let json = response.json();
        assert_eq!(json["error_code"], "bad_json", "{body}");
        assert!(json["msg"]
            .as_str()
            .unwrap()
            .starts_with("Could not parse request body as JSON: "));
    }
}

#[tokio::test]
async fn the_gateway_wants_an_api_key() {
    let auth = AuthApp::new();
    let response = auth
        .app
        .bare(Method::POST, SIGNUP)
        .json(&json!({"email": "a@example.com", "password": PASSWORD}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::UNAUTHORIZED);
    assert_eq!(response.json()["message"], "No API key found in request");
    // Nothing was created.
    auth.sign_up("a@example.com").await;
}
