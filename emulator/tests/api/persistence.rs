//! Acknowledged inserts survive closing and reopening the database file.

use crate::support::{TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use geocache_emulator::db::{AppState, DbLocation};
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use serde_json::json;

#[tokio::test]
async fn inserts_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    // Parent directories are created on first open.
    let location = DbLocation::File(dir.path().join("nested/data/emulator.sqlite3"));

    let first = TestApp::with_state(AppState::open(&location, DEFAULT_JWT_SECRET).unwrap());
    let response = first
        .anon(Method::POST, TABLE_URL)
        .json(&json!({"name": "persistent", "message": "written before the restart"}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::CREATED);
    let before = first.all_rows().await;
    drop(first);

    let second = TestApp::with_state(AppState::open(&location, DEFAULT_JWT_SECRET).unwrap());
    assert_eq!(second.all_rows().await, before);
    // Ids keep counting after a restart.
    let rows = second.seed(json!({"name": "after", "message": "m"})).await;
    assert_eq!(rows[0]["id"], 2);
}

#[tokio::test]
async fn file_databases_use_wal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wal.sqlite3");
    let app = TestApp::with_state(
        AppState::open(&DbLocation::File(path.clone()), DEFAULT_JWT_SECRET).unwrap(),
    );
    app.seed(json!({"name": "n", "message": "m"})).await;
    let mode: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[tokio::test]
async fn memory_databases_are_private_to_their_state() {
    let one = TestApp::new();
    let two = TestApp::new();
    one.seed(json!({"name": "n", "message": "m"})).await;
    assert!(two.all_rows().await.is_empty());
}
