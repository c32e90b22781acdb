//! What the gateway and PostgREST refuse: oversized bodies (413), unknown columns and methods
//! the endpoint does not answer (405 with `Allow`).

use crate::support::{TestApp, TABLE_URL};
use crate::wire::{raw_exchange, request, Served};
use axum::http::{Method, StatusCode};
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use serde_json::json;

fn app_with_limit(bytes: usize) -> TestApp {
    TestApp::with_state(
        AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET)
            .unwrap()
            .with_max_body_bytes(bytes),
    )
}

#[track_caller]
fn assert_too_large(response: &crate::support::TestResponse) {
    assert_eq!(
        response.status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        response.body
    );
    assert_eq!(
        response.json(),
        json!({"message": "Request size limit exceeded"})
    );
    assert_eq!(
        response.header("content-type"),
        Some("application/json; charset=utf-8")
    );
}

#[tokio::test]
async fn a_one_megabyte_message_fits_by_default() {
    let app = TestApp::new();
    let plain = "x".repeat(1_000_000);
    // Every character escaped (6 bytes each in JSON) still fits.
    let escaped = "\u{1}".repeat(1_000_000);
    let emoji = "🧭".repeat(250_000);
    for message in [&plain, &escaped, &emoji] {
        let response = app
            .anon(Method::POST, TABLE_URL)
            .json(&json!({"name": "big", "message": message}))
            .send()
            .await;
        assert_eq!(response.status, StatusCode::CREATED, "{}", response.body);
    }
    let rows = app.all_rows().await;
    assert_eq!(rows[0]["message"], plain.as_str());
    assert_eq!(rows[1]["message"], escaped.as_str());
    assert_eq!(rows[2]["message"], emoji.as_str());
}

#[tokio::test]
async fn bodies_over_the_default_limit_are_413() {
    let app = TestApp::new();
    let padding = "x".repeat(8 * 1024 * 1024);
    let response = app
        .anon(Method::POST, TABLE_URL)
        .json(&json!({"name": "huge", "message": padding}))
        .send()
        .await;
    assert_too_large(&response);
    assert!(app.all_rows().await.is_empty());
}

#[tokio::test]
async fn the_limit_is_configurable_and_covers_every_api() {
    let app = app_with_limit(1024);
    let fits = json!({"name": "n", "message": "m".repeat(900)});
    let response = app.anon(Method::POST, TABLE_URL).json(&fits).send().await;
    assert_eq!(response.status, StatusCode::CREATED, "{}", response.body);
    let too_big = json!({"name": "n", "message": "m".repeat(1100)});
    for (method, path) in [
        (Method::POST, TABLE_URL.to_owned()),
        (Method::PATCH, format!("{TABLE_URL}?id=eq.1")),
        (Method::POST, "/auth/v1/signup".to_owned()),
        (Method::POST, "/emulator/v1/faults".to_owned()),
    ] {
        // Streamed without a declared length.
        assert_too_large(
            &app.service(method.clone(), &path)
                .json(&too_big)
                .send()
                .await,
        );
        // A declared length over the limit is refused before the body is read.
        let response = app
            .service(method, &path)
            .header("content-length", "2048")
            .json(&json!({}))
            .send()
            .await;
        assert_too_large(&response);
    }
    assert_eq!(app.all_rows().await.len(), 1);
}

#[tokio::test]
async fn an_oversized_declared_length_is_answered_without_waiting_for_the_body() {
    let served = Served::start(
        AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET)
            .unwrap()
            .with_max_body_bytes(4096),
    )
    .await;
    // The body never comes: the answer must not wait for it.
    let request = format!(
        "POST {TABLE_URL} HTTP/1.1\r\nHost: emulator\r\napikey: {key}\r\n\
         Content-Type: application/json\r\nContent-Length: 9000000\r\n\r\n{{\"name\":",
        key = served.anon
    );
    let raw = raw_exchange(served.address, request.as_bytes()).await;
    let text = raw.text();
    assert!(
        text.starts_with("HTTP/1.1 413 Payload Too Large\r\n"),
        "{text}"
    );
    assert!(
        text.ends_with(r#"{"message":"Request size limit exceeded"}"#),
        "{text}"
    );
}

#[tokio::test]
async fn unsupported_methods_are_405_with_allow() {
    let app = TestApp::new();
    let response = app.anon(Method::PUT, TABLE_URL).send().await;
    response.assert_postgrest_error(
        StatusCode::METHOD_NOT_ALLOWED,
        "PGRST117",
        "Unsupported HTTP method: PUT",
    );
    assert_eq!(
        response.header("allow"),
        Some("OPTIONS,GET,HEAD,POST,PATCH,DELETE")
    );
    for (method, path, allowed) in [
        (Method::GET, "/auth/v1/signup", "POST"),
        (Method::DELETE, "/auth/v1/token", "POST"),
        (Method::PUT, "/auth/v1/user", "GET,HEAD"),
        (Method::POST, "/emulator/v1/sms", "GET,HEAD"),
    ] {
        let response = app.service(method.clone(), path).send().await;
        assert_eq!(
            response.status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        assert_eq!(response.header("allow"), Some(allowed), "{method} {path}");
    }
}

#[tokio::test]
async fn unknown_columns_are_refused_wherever_they_appear() {
    let app = TestApp::new();
    app.seed(json!({"name": "survivor", "message": "m"})).await;
    let before = app.all_rows().await;
    let cases = [
        (
            Method::GET,
            format!("{TABLE_URL}?select=id,password"),
            "42703",
        ),
        (
            Method::GET,
            format!("{TABLE_URL}?order=password.desc"),
            "42703",
        ),
        (Method::GET, format!("{TABLE_URL}?password=eq.x"), "42703"),
        (Method::HEAD, format!("{TABLE_URL}?password=eq.x"), ""),
        (
            Method::DELETE,
            format!("{TABLE_URL}?password=eq.x"),
            "42703",
        ),
        (Method::PATCH, format!("{TABLE_URL}?password=eq.x"), "42703"),
        (
            Method::PATCH,
            format!("{TABLE_URL}?id=eq.1&select=password"),
            "42703",
        ),
        (
            Method::POST,
            format!("{TABLE_URL}?columns=name,password"),
            "PGRST204",
        ),
    ];
    for (method, uri, code) in cases {
        let response = app
            .service(method.clone(), &uri)
            .json(&json!({"name": "n", "message": "m"}))
            .send()
            .await;
        assert_eq!(response.status, StatusCode::BAD_REQUEST, "{method} {uri}");
        if method != Method::HEAD {
            assert_eq!(response.json()["code"], code, "{method} {uri}");
        }
    }
    let response = app
        .anon(Method::POST, TABLE_URL)
        .json(&json!({"name": "n", "message": "m", "is_admin": true}))
        .send()
        .await;
    response.assert_postgrest_error(
        StatusCode::BAD_REQUEST,
        "PGRST204",
        "Could not find the 'is_admin' column of 'geocache_logs' in the schema cache",
    );
    assert_eq!(app.all_rows().await, before);
}

#[tokio::test]
async fn a_deeply_nested_select_is_refused_and_the_server_keeps_serving() {
    // Found by fuzzing: the select parser recursed once per `(`, and a few kilobytes of nesting
    // overflowed the stack, aborting the whole server.
    let served =
        Served::start(AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET).unwrap()).await;
    let mut client = served.client().await;
    let deep = format!(
        "{TABLE_URL}?select={}id{}",
        "a(".repeat(20_000),
        ")".repeat(20_000)
    );
    let reply = client
        .send(request(Method::GET, &deep, &served.anon, None))
        .await
        .unwrap();
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text());
    assert_eq!(reply.json()["code"], "PGRST127");
    let reply = client
        .send(request(Method::GET, TABLE_URL, &served.anon, None))
        .await
        .unwrap();
    assert_eq!(reply.status, StatusCode::OK);
}
