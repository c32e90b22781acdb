//! Acknowledged inserts survive closing and reopening the database file.

use crate::support::{TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
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

/// The permission bits of `path`.
#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
#[tokio::test]
async fn the_database_and_its_wal_files_are_readable_by_their_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data/private.sqlite3");
    let app = TestApp::with_state(
        AppState::open(&DbLocation::File(path.clone()), DEFAULT_JWT_SECRET).unwrap(),
    );
    app.seed(json!({"name": "n", "message": "m"})).await;
    assert_eq!(mode(&dir.path().join("data")), 0o700);
    for name in [
        "private.sqlite3",
        "private.sqlite3-wal",
        "private.sqlite3-shm",
    ] {
        assert_eq!(mode(&dir.path().join("data").join(name)), 0o600, "{name}");
    }
    drop(app);

    // A database an older emulator left readable by everyone is tightened when opened.
    for name in [
        "private.sqlite3",
        "private.sqlite3-wal",
        "private.sqlite3-shm",
    ] {
        let file = dir.path().join("data").join(name);
        if file.exists() {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
    let _reopened = AppState::open(&DbLocation::File(path.clone()), DEFAULT_JWT_SECRET).unwrap();
    assert_eq!(mode(&path), 0o600);
}
