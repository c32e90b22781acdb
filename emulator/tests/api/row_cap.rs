//! The row cap (PostgREST's `db-max-rows`, `--max-rows`/`[api] max_rows`): reads return at most
//! that many rows, with or without limit, offset and count; writes are never capped.

use crate::support::{TestApp, TestResponse, TABLE_URL};
use crate::wire::Binary;
use axum::http::{Method, StatusCode};
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;

fn capped_app(max_rows: i64) -> TestApp {
    TestApp::with_state(
        AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET)
            .unwrap()
            .with_max_rows(max_rows),
    )
}

fn entries(count: usize) -> Value {
    (1..=count)
        .map(|index| json!({"name": format!("n{index}"), "message": "m"}))
        .collect()
}

async fn read(app: &TestApp, query: &str, count: bool) -> TestResponse {
    let request = app.anon(
        Method::GET,
        &format!("{TABLE_URL}?select=id&order=id{query}"),
    );
    let request = if count {
        request.header("prefer", "count=exact")
    } else {
        request
    };
    request.send().await
}

fn ids(response: &TestResponse) -> Vec<i64> {
    response
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["id"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn reads_without_a_count_are_capped_with_an_open_total() {
    let app = capped_app(5);
    app.seed(entries(12)).await;
    for (query, expected_ids, range) in [
        ("", (1..=5).collect::<Vec<_>>(), "0-4/*"),
        ("&limit=10", (1..=5).collect(), "0-4/*"),
        ("&limit=3", (1..=3).collect(), "0-2/*"),
        ("&offset=4", (5..=9).collect(), "4-8/*"),
        ("&offset=10", vec![11, 12], "10-11/*"),
        ("&offset=12", vec![], "*/*"),
    ] {
        let response = read(&app, query, false).await;
        assert_eq!(
            response.status,
            StatusCode::OK,
            "{query}: {}",
            response.body
        );
        assert_eq!(ids(&response), expected_ids, "{query}");
        assert_eq!(response.header("content-range"), Some(range), "{query}");
    }
}

#[tokio::test]
async fn counted_reads_report_the_full_total_with_206_or_416() {
    let app = capped_app(5);
    app.seed(entries(12)).await;
    for (query, status, rows, range) in [
        ("", StatusCode::PARTIAL_CONTENT, 5, "0-4/12"),
        ("&limit=100", StatusCode::PARTIAL_CONTENT, 5, "0-4/12"),
        ("&offset=9", StatusCode::PARTIAL_CONTENT, 3, "9-11/12"),
        ("&offset=12", StatusCode::PARTIAL_CONTENT, 0, "*/12"),
        ("&name=in.(n1,n2)", StatusCode::OK, 2, "0-1/2"),
    ] {
        let response = read(&app, query, true).await;
        assert_eq!(response.status, status, "{query}: {}", response.body);
        assert_eq!(ids(&response).len(), rows, "{query}");
        assert_eq!(response.header("content-range"), Some(range), "{query}");
    }
    let past_the_end = read(&app, "&offset=13", true).await;
    assert_eq!(past_the_end.status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(past_the_end.json()["code"], "PGRST103");
    let head = app
        .anon(Method::HEAD, TABLE_URL)
        .header("prefer", "count=exact")
        .send()
        .await;
    assert_eq!(head.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(head.header("content-range"), Some("0-4/12"));
}

#[tokio::test]
async fn an_empty_table_reads_as_an_empty_range() {
    let app = capped_app(5);
    let response = read(&app, "", true).await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.header("content-range"), Some("*/0"));
}

#[tokio::test]
async fn writes_are_not_capped() {
    let app = capped_app(2);
    let inserted = app
        .service(Method::POST, TABLE_URL)
        .header("prefer", "return=representation,count=exact")
        .json(&entries(6))
        .send()
        .await;
    assert_eq!(inserted.status, StatusCode::CREATED, "{}", inserted.body);
    assert_eq!(inserted.json().as_array().unwrap().len(), 6);
    assert_eq!(inserted.header("content-range"), Some("*/6"));
    let updated = app
        .service(Method::PATCH, &format!("{TABLE_URL}?id=gt.0"))
        .header("prefer", "return=representation")
        .json(&json!({"message": "changed"}))
        .send()
        .await;
    assert_eq!(updated.status, StatusCode::OK, "{}", updated.body);
    assert_eq!(updated.json().as_array().unwrap().len(), 6);
    let deleted = app
        .service(Method::DELETE, &format!("{TABLE_URL}?id=gt.0"))
        .header("prefer", "return=representation")
        .send()
        .await;
    assert_eq!(deleted.json().as_array().unwrap().len(), 6);
}

#[tokio::test]
async fn the_default_cap_is_a_thousand_rows() {
    let app = TestApp::new();
    app.seed(entries(1001)).await;
    let response = read(&app, "", false).await;
    assert_eq!(ids(&response).len(), 1000);
    assert_eq!(response.header("content-range"), Some("0-999/*"));
    let counted = read(&app, "", true).await;
    assert_eq!(counted.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(counted.header("content-range"), Some("0-999/1001"));
}

/// A raw GET over the binary's socket; returns the head and body.
fn raw_get(binary: &Binary, path: &str, key: &str) -> String {
    let mut stream = TcpStream::connect(binary.address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: x\r\napikey: {key}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    text
}

#[test]
fn the_binary_reads_the_cap_from_the_config_file_and_the_flag_wins() {
    let mut config = tempfile::NamedTempFile::new().unwrap();
    config
        .write_all(b"project_id = \"x\"\n[api]\nport = 1\nmax_rows = 2\n")
        .unwrap();
    let path = config.path().to_str().unwrap();
    let from_file = Binary::start(&["--db", ":memory:", "--config", path]);
    let seeded = raw_request_insert(&from_file, 3);
    assert!(seeded.starts_with("HTTP/1.1 201"), "{seeded}");
    let capped = raw_get(
        &from_file,
        "/rest/v1/geocache_logs?select=id",
        &from_file.secret,
    );
    assert!(capped.contains("content-range: 0-1/*"), "{capped}");
    drop(from_file);

    let flag = Binary::start(&["--db", ":memory:", "--config", path, "--max-rows", "3"]);
    raw_request_insert(&flag, 4);
    let capped = raw_get(&flag, "/rest/v1/geocache_logs?select=id", &flag.publishable);
    assert!(capped.contains("content-range: 0-2/*"), "{capped}");
}

fn raw_request_insert(binary: &Binary, rows: usize) -> String {
    let body = entries(rows).to_string();
    let mut stream = TcpStream::connect(binary.address).unwrap();
    write!(
        stream,
        "POST /rest/v1/geocache_logs HTTP/1.1\r\nHost: x\r\napikey: {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        binary.service,
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    text
}

#[test]
fn the_binary_refuses_a_bad_config_file_clearly() {
    let mut config = tempfile::NamedTempFile::new().unwrap();
    config.write_all(b"[api]\nmax_rows = 0\n").unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_geocache-emulator"))
        .args(["--port", "0", "--db", ":memory:", "--config"])
        .arg(config.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("max_rows must be at least 1"), "{stderr}");
}
