//! Tables, schemas, methods and paths.

use crate::support::{TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

#[tokio::test]
async fn unknown_table_is_pgrst205_with_a_hint_when_close() {
    let app = TestApp::new();
    let response = app.anon(Method::GET, "/rest/v1/geocache_log").send().await;
    let body = response.assert_postgrest_error(
        StatusCode::NOT_FOUND,
        "PGRST205",
        "Could not find the table 'public.geocache_log' in the schema cache",
    );
    assert_eq!(
        body["hint"],
        "Perhaps you meant the table 'public.geocache_logs'"
    );
    let response = app
        .anon(Method::POST, "/rest/v1/users")
        .json(&json!({}))
        .send()
        .await;
    let body = response.assert_postgrest_error(
        StatusCode::NOT_FOUND,
        "PGRST205",
        "Could not find the table 'public.users' in the schema cache",
    );
    assert_eq!(body["hint"], Value::Null);
}

#[tokio::test]
async fn other_schemas_are_not_exposed() {
    let app = TestApp::new();
    let response = app
        .anon(Method::GET, TABLE_URL)
        .header("accept-profile", "private")
        .send()
        .await;
    let body = response.assert_postgrest_error(
        StatusCode::NOT_ACCEPTABLE,
        "PGRST106",
        "Invalid schema: private",
    );
    assert_eq!(
        body["hint"],
        "Only the following schemas are exposed: public"
    );
    let response = app
        .anon(Method::POST, TABLE_URL)
        .header("content-profile", "auth")
        .json(&json!({"name": "n", "message": "m"}))
        .send()
        .await;
    assert_eq!(response.json()["code"], "PGRST106");
    // Writes read Content-Profile, not Accept-Profile.
    let response = app
        .anon(Method::POST, TABLE_URL)
        .header("accept-profile", "auth")
        .json(&json!({"name": "n", "message": "m"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED);
}

#[tokio::test]
async fn unsupported_methods_are_405() {
    let app = TestApp::new();
    for method in [
        Method::PUT,
        Method::TRACE,
        Method::from_bytes(b"PURGE").unwrap(),
    ] {
        let response = app.anon(method.clone(), TABLE_URL).send().await;
        response.assert_postgrest_error(
            StatusCode::METHOD_NOT_ALLOWED,
            "PGRST117",
            &format!("Unsupported HTTP method: {method}"),
        );
    }
}

#[tokio::test]
async fn any_options_request_is_answered_by_cors_without_a_key() {
    let app = TestApp::new();
    let response = app.bare(Method::OPTIONS, TABLE_URL).send().await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.body, "");
    assert_eq!(response.header("access-control-allow-origin"), Some("*"));
}

#[tokio::test]
async fn other_rest_paths_are_invalid() {
    let app = TestApp::new();
    for path in [
        "/rest/v1/",
        "/rest/v1/geocache_logs/1",
        "/rest/v1/rpc/restore_geocache_log/1",
    ] {
        let response = app.anon(Method::GET, path).send().await;
        response.assert_postgrest_error(
            StatusCode::NOT_FOUND,
            "PGRST125",
            "Invalid path specified in request URL",
        );
    }
}

#[tokio::test]
async fn unknown_top_level_paths_are_404() {
    let app = TestApp::new();
    // A Supabase API the emulator does not serve.
    let response = app.bare(Method::GET, "/graphql/v1").send().await;
    assert_eq!(response.status, StatusCode::NOT_FOUND);
    assert_eq!(
        response.json()["message"],
        "no Route matched with those values"
    );
}

#[tokio::test]
async fn health_needs_no_key() {
    let app = TestApp::new();
    for path in ["/", "/health"] {
        let response = app.bare(Method::GET, path).send().await;
        assert_eq!(response.status, StatusCode::OK);
        assert_eq!(response.json()["status"], "ok");
    }
}
