//! API keys (the gateway) and bearer JWTs (PostgREST).

use crate::support::{TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use geocache_emulator::db::DbLocation;
use geocache_emulator::state::AppState;
use serde_json::{json, Value};

fn now() -> i64 {
    geocache_emulator::timestamp::now_micros() / 1_000_000
}

#[tokio::test]
async fn missing_api_key_is_refused_by_the_gateway() {
    let app = TestApp::new();
    let response = app.bare(Method::GET, TABLE_URL).send().await;
    assert_eq!(response.status, StatusCode::UNAUTHORIZED);
    assert_eq!(response.json()["message"], "No API key found in request");
    // A bearer token alone is not an API key.
    let response = app
        .bare(Method::GET, TABLE_URL)
        .header("authorization", &format!("Bearer {}", app.anon))
        .send()
        .await;
    assert_eq!(response.json()["message"], "No API key found in request");
}

#[tokio::test]
async fn api_key_may_be_a_query_parameter() {
    let app = TestApp::new();
    let response = app
        .bare(
            Method::GET,
            &format!("{TABLE_URL}?select=id&apikey={}", app.anon),
        )
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    assert_eq!(response.body, "[]");
}

#[tokio::test]
async fn the_emulator_endpoints_take_the_key_from_the_header_only() {
    let app = TestApp::new();
    for key in [app.service.clone(), app.anon.clone()] {
        for (method, path) in [
            (Method::GET, "/emulator/v1/sms"),
            (Method::GET, "/emulator/v1/faults"),
            (Method::DELETE, "/emulator/v1/faults"),
        ] {
            let response = app
                .bare(method.clone(), &format!("{path}?apikey={key}"))
                .send()
                .await;
            assert_eq!(response.status, StatusCode::UNAUTHORIZED, "{method} {path}");
            assert_eq!(response.json()["message"], "No API key found in request");
            let hint = response.json()["hint"].as_str().unwrap().to_owned();
            assert!(hint.contains("`apikey` header only"), "{hint}");
        }
    }
    // The header still works.
    let response = app.service(Method::GET, "/emulator/v1/sms").send().await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
}

#[tokio::test]
async fn invalid_api_keys_are_refused_by_the_gateway() {
    let app = TestApp::new();
    let foreign = AppState::open(
        &DbLocation::Memory,
        "some-other-secret-of-at-least-32-chars",
    )
    .unwrap();
    let expired = app
        .state
        .keys
        .sign(&json!({"role": "anon", "exp": now() - 3600}));
    let wrong_role = app.state.keys.sign(&json!({"role": "authenticated"}));
    // A token naming no role is not the anon key, though PostgREST would run it as anon.
    let no_role = app
        .state
        .keys
        .sign(&json!({"iss": "supabase-demo", "exp": now() + 3600}));
    let unknown_role = app.state.keys.sign(&json!({"role": "supabase_admin"}));
    // A signed URL's token, signed with the same secret, is no key either.
    let url_token = geocache_emulator::storage::signed_url::sign_download(
        &app.state.keys,
        "b/a.txt",
        now(),
        60,
    );
    let unsigned = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#),
        URL_SAFE_NO_PAD.encode(r#"{"role":"service_role"}"#)
    );
    for key in [
        "not-a-jwt".to_owned(),
        foreign.keys.anon_key().to_owned(),
        expired,
        wrong_role,
        no_role,
        unknown_role,
        url_token,
        unsigned,
        String::new(),
    ] {
        let response = app
            .bare(Method::GET, TABLE_URL)
            .header("apikey", &key)
            .send()
            .await;
        assert_eq!(response.status, StatusCode::UNAUTHORIZED, "{key}");
        assert_eq!(response.json()["message"], "Invalid API key", "{key}");
    }
}

#[tokio::test]
async fn without_a_bearer_the_api_key_decides_the_role() {
    let app = TestApp::new();
    app.seed(json!({"name": "n", "message": "m"})).await;
    let anon_delete = app
        .bare(Method::DELETE, &format!("{TABLE_URL}?id=eq.1"))
        .header("apikey", &app.anon)
        .send()
        .await;
    assert_eq!(anon_delete.status, StatusCode::UNAUTHORIZED);
    let service_delete = app
        .bare(Method::DELETE, &format!("{TABLE_URL}?id=eq.1"))
        .header("apikey", &app.service)
        .send()
        .await;
    assert_eq!(service_delete.status, StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn the_bearer_role_wins_over_the_api_key() {
    let app = TestApp::new();
    app.seed(json!({"name": "n", "message": "m"})).await;
    // Service key as apikey, anon bearer: runs as anon (PostgREST only sees the bearer).
    let response = app
        .bare(Method::DELETE, &format!("{TABLE_URL}?id=eq.1"))
        .header("apikey", &app.service)
        .header("authorization", &format!("Bearer {}", app.anon))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::UNAUTHORIZED);
    // Anon key as apikey, service bearer: runs as service_role.
    let response = app
        .bare(Method::DELETE, &format!("{TABLE_URL}?id=eq.1"))
        .header("apikey", &app.anon)
        .header("authorization", &format!("Bearer {}", app.service))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn authenticated_bearer_reads_and_inserts_like_anon() {
    let app = TestApp::new();
    let user = app.state.keys.sign(&json!({
        "role": "authenticated", "sub": "user-1", "aud": "authenticated", "exp": now() + 3600
    }));
    let response = app
        .bare(Method::POST, TABLE_URL)
        .header("apikey", &app.anon)
        .header("authorization", &format!("Bearer {user}"))
        .json(&json!({"name": "n", "message": "m"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED);
    let response = app
        .bare(Method::GET, TABLE_URL)
        .header("apikey", &app.anon)
        .header("authorization", &format!("Bearer {user}"))
        .send()
        .await;
    assert_eq!(response.json().as_array().unwrap().len(), 1);
}

async fn with_bearer(app: &TestApp, token: &str) -> crate::support::TestResponse {
    app.bare(Method::GET, TABLE_URL)
        .header("apikey", &app.anon)
        .header("authorization", &format!("Bearer {token}"))
        .send()
        .await
}

#[tokio::test]
async fn bad_bearer_tokens_get_postgrest_jwt_errors() {
    let app = TestApp::new();
    let foreign = AppState::open(
        &DbLocation::Memory,
        "some-other-secret-of-at-least-32-chars",
    )
    .unwrap();
    let claims = URL_SAFE_NO_PAD.encode(r#"{"role":"service_role"}"#);
    let cases: Vec<(String, &str, &str)> = vec![
        (
            "".into(),
            "PGRST301",
            "Empty JWT is sent in Authorization header",
        ),
        ("abc".into(), "PGRST301", "Expected 3 parts in JWT; got 1"),
        (
            foreign.keys.service_role_key().to_owned(),
            "PGRST301",
            "JWT cryptographic operation failed",
        ),
        (
            format!(
                "{}.{claims}.",
                URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#)
            ),
            "PGRST301",
            "Wrong or unsupported encoding algorithm",
        ),
        (
            app.state
                .keys
                .sign(&json!({"role": "anon", "exp": now() - 3600})),
            "PGRST303",
            "JWT expired",
        ),
        (
            app.state
                .keys
                .sign(&json!({"role": "anon", "nbf": now() + 3600})),
            "PGRST303",
            "JWT not yet valid",
        ),
    ];
    for (token, code, message) in cases {
        let response = with_bearer(&app, &token).await;
        response.assert_postgrest_error(StatusCode::UNAUTHORIZED, code, message);
        assert_eq!(
            response.header("www-authenticate"),
            Some(
                format!("Bearer error=\"invalid_token\", error_description=\"{message}\"").as_str()
            )
        );
    }
}

#[tokio::test]
async fn bearer_with_an_unknown_role_is_refused() {
    let app = TestApp::new();
    let token = app.state.keys.sign(&json!({"role": "postgres"}));
    let response = with_bearer(&app, &token).await;
    response.assert_postgrest_error(
        StatusCode::UNAUTHORIZED,
        "22023",
        "role \"postgres\" does not exist",
    );
    // No role claim means PostgREST's anonymous role.
    let token = app.state.keys.sign(&json!({"sub": "x"}));
    assert_eq!(with_bearer(&app, &token).await.status, StatusCode::OK);
}

#[tokio::test]
async fn jwt_errors_come_before_anything_else() {
    let app = TestApp::new();
    let response = app
        .bare(Method::GET, "/rest/v1/no_such_table?select=;")
        .header("apikey", &app.anon)
        .header("authorization", "Bearer abc")
        .send()
        .await;
    assert_eq!(response.json()["code"], Value::from("PGRST301"));
}

#[tokio::test]
async fn the_secret_flag_changes_the_keys() {
    let custom = AppState::open(
        &DbLocation::Memory,
        "a-custom-secret-with-at-least-32-chars!!",
    )
    .unwrap();
    let app = TestApp::with_state(custom);
    assert_ne!(app.anon, TestApp::new().anon);
    let response = app.anon(Method::GET, TABLE_URL).send().await;
    assert_eq!(response.status, StatusCode::OK);
    let default_keys = TestApp::new();
    let response = app
        .bare(Method::GET, TABLE_URL)
        .header("apikey", &default_keys.anon)
        .send()
        .await;
    assert_eq!(response.status, StatusCode::UNAUTHORIZED);
}
