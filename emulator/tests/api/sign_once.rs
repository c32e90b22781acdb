//! Signs stored once per `Idempotency-Key`, answered as PostgREST answers the hosted migration:
//! a resend stores nothing and is still a 201, a malformed key is PT400, a refused request keeps
//! no receipt, and a resend is never counted by the sign limit.

use crate::support::{TestApp, TestResponse, TABLE_URL};
use axum::http::{Method, StatusCode};
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::rest::sign_limit::SignLimits;
use geocache_emulator::state::AppState;
use serde_json::{json, Value};

const KEY: &str = "123e4567-e89b-42d3-a456-426614174000";

fn entry(name: &str) -> Value {
    json!({"name": name, "message": "found it"})
}

async fn sign(app: &TestApp, key: Option<&str>, body: &Value) -> TestResponse {
    let mut request = app.anon(Method::POST, TABLE_URL);
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    request.json(body).send().await
}

fn names(rows: &[Value]) -> Vec<&str> {
    rows.iter()
        .map(|row| row["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_resend_stores_nothing_and_is_answered_as_a_success() {
    let app = TestApp::new();
    let first = sign(&app, Some(KEY), &entry("Ann")).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    let again = sign(&app, Some(KEY), &entry("Ann")).await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    assert_eq!(again.body, "");
    assert_eq!(again.header("content-range"), Some("*/*"));
    // Another case of the same UUID is the same key.
    let upper = sign(&app, Some(&KEY.to_uppercase()), &entry("Ann")).await;
    assert_eq!(
        (upper.status, upper.body.as_str()),
        (StatusCode::CREATED, "")
    );
    let shown = app
        .anon(Method::POST, TABLE_URL)
        .header("idempotency-key", KEY)
        .header("prefer", "return=representation")
        .json(&entry("Ann"))
        .send()
        .await;
    assert_eq!(shown.status, StatusCode::CREATED);
    assert_eq!(shown.json(), json!([]));
    assert_eq!(shown.header("content-range"), Some("*/*"));
    // Even a resend whose body would now be refused stores nothing and is a success: its rows
    // are skipped before they are checked.
    let odd = sign(&app, Some(KEY), &json!({"name": null, "message": "x"})).await;
    assert_eq!(odd.status, StatusCode::CREATED, "{}", odd.body);
    assert_eq!(names(&app.all_rows().await), ["Ann"]);
}

#[tokio::test]
async fn a_key_covers_every_row_of_its_request_and_other_keys_are_other_signs() {
    let app = TestApp::new();
    let both = json!([entry("Ann"), entry("Bob")]);
    let shown = app
        .anon(Method::POST, TABLE_URL)
        .header("idempotency-key", KEY)
        .header("prefer", "return=representation")
        .json(&both)
        .send()
        .await;
    assert_eq!(names(shown.json().as_array().unwrap()), ["Ann", "Bob"]);
    assert_eq!(
        sign(&app, Some(KEY), &both).await.status,
        StatusCode::CREATED
    );
    let other = "123e4567-e89b-42d3-a456-426614174001";
    assert_eq!(
        sign(&app, Some(other), &entry("Ann")).await.status,
        StatusCode::CREATED
    );
    assert_eq!(names(&app.all_rows().await), ["Ann", "Bob", "Ann"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_requests_with_one_key_store_one_sign() {
    let app = TestApp::new();
    let requests: Vec<_> = (0..16)
        .map(|_| {
            let request = app
                .anon(Method::POST, TABLE_URL)
                .header("idempotency-key", KEY)
                .json(&entry("Ann"));
            tokio::spawn(request.send())
        })
        .collect();
    for request in requests {
        let answer = request.await.unwrap();
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    }
    assert_eq!(app.all_rows().await.len(), 1);
}

#[tokio::test]
async fn without_a_key_every_request_is_stored() {
    let app = TestApp::new();
    for _ in 0..2 {
        assert_eq!(
            sign(&app, None, &entry("Ann")).await.status,
            StatusCode::CREATED
        );
    }
    assert_eq!(app.all_rows().await.len(), 2);
}

#[tokio::test]
async fn a_malformed_key_is_refused_with_the_migrations_answer() {
    let app = TestApp::new();
    for malformed in [
        "",
        "not-a-uuid",
        "123e4567e89b42d3a456426614174000",
        "{123e4567-e89b-42d3-a456-426614174000}",
        "123e4567-e89b-42d3-a456-42661417400g",
    ] {
        let refused = sign(&app, Some(malformed), &entry("Ann")).await;
        let body = refused.assert_postgrest_error(
            StatusCode::BAD_REQUEST,
            "PT400",
            "The Idempotency-Key header is not a UUID.",
        );
        assert_eq!(
            body,
            json!({
                "code": "PT400",
                "message": "The Idempotency-Key header is not a UUID.",
                "details": "A sign's key is a UUID written as 8-4-4-4-12 hexadecimal digits, such as 123e4567-e89b-42d3-a456-426614174000.",
                "hint": "Send a new random UUID with each sign and the same one when sending it again, or leave the header out."
            }),
            "{malformed:?}"
        );
    }
    // The key is looked at only when a row is about to be stored.
    assert_eq!(
        sign(&app, Some("nope"), &json!([])).await.status,
        StatusCode::CREATED
    );
    assert!(app.all_rows().await.is_empty());
}

#[tokio::test]
async fn a_refused_request_records_no_key() {
    let app = TestApp::new();
    let refused = sign(&app, Some(KEY), &json!({"name": null, "message": "x"})).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
    let stored = sign(&app, Some(KEY), &entry("Ann")).await;
    assert_eq!(stored.status, StatusCode::CREATED);
    assert_eq!(names(&app.all_rows().await), ["Ann"]);
}

#[tokio::test]
async fn the_key_applies_to_every_role() {
    let app = TestApp::new();
    for _ in 0..2 {
        let answer = app
            .service(Method::POST, TABLE_URL)
            .header("idempotency-key", KEY)
            .json(&entry("Ann"))
            .send()
            .await;
        assert_eq!(answer.status, StatusCode::CREATED);
    }
    assert_eq!(app.all_rows().await.len(), 1);
}

#[tokio::test]
async fn a_resend_is_never_refused_by_the_sign_limit() {
    let state = AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET)
        .unwrap()
        .with_sign_limits(SignLimits {
            max_signs_per_request: None,
            max_signs_per_address_minute: Some(1),
            max_signs_per_minute: None,
            limit_loopback: true,
        });
    let app = TestApp::with_state(state);
    let peer = "127.0.0.1:40000";
    let send = |key: &'static str| {
        app.anon(Method::POST, TABLE_URL)
            .from(peer)
            .header("idempotency-key", key)
            .json(&entry("Ann"))
            .send()
    };
    assert_eq!(send(KEY).await.status, StatusCode::CREATED);
    for _ in 0..3 {
        assert_eq!(send(KEY).await.status, StatusCode::CREATED);
    }
    // A new sign is still limited, and its refusal records no key.
    let other = "123e4567-e89b-42d3-a456-426614174001";
    assert_eq!(send(other).await.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(app.all_rows().await.len(), 1);
}

#[tokio::test]
async fn a_preflight_reflects_the_idempotency_key_header() {
    let app = TestApp::new();
    let response = app
        .bare(Method::OPTIONS, TABLE_URL)
        .header("origin", "http://127.0.0.1:5173")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "apikey,authorization,content-type,idempotency-key",
        )
        .send()
        .await;
    assert!(response.status.is_success(), "{:?}", response.status);
    let allowed = response.header("access-control-allow-headers").unwrap();
    assert!(
        allowed
            .split(',')
            .any(|header| header.trim() == "idempotency-key"),
        "{allowed}"
    );
}
