//! Acknowledged inserts survive closing and reopening the database file, and a database file an
//! emulator wrote keeps serving every service's rows.

use crate::support::{TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use serde_json::{json, Value};

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

/// Each service creates its own tables at start; on a file that already holds them, nothing is
/// lost and every service reads its rows as they were written.
#[tokio::test]
async fn an_existing_database_keeps_serving_every_services_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("emulator.sqlite3");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(include_str!("fixtures/existing-database.sql"))
        .unwrap();
    let app =
        TestApp::with_state(AppState::open(&DbLocation::File(path), DEFAULT_JWT_SECRET).unwrap());

    let rows = app.all_rows().await;
    let signs: Vec<(&Value, &Value)> = rows.iter().map(|row| (&row["id"], &row["name"])).collect();
    assert_eq!(
        signs,
        [(&json!(1), &json!("Ada")), (&json!(2), &json!("Grace"))]
    );
    assert_eq!(rows[0]["created_at"], "2026-11-28T11:11:48.707955+00:00");
    // The second sign's receipt still makes its resend a success that stores nothing.
    let resent = app
        .anon(Method::POST, TABLE_URL)
        .header("idempotency-key", "6f1c7d2a-6a55-4b0e-9a3e-0c1f3f0f2b11")
        .json(&json!({"name": "Grace", "message": "TFTC"}))
        .send()
        .await;
    assert_eq!(resent.status, StatusCode::CREATED, "{}", resent.body);
    assert_eq!(app.all_rows().await.len(), 2);
    // Ids go on from the last one stored.
    assert_eq!(
        app.seed(json!({"name": "next", "message": "m"})).await[0]["id"],
        3
    );

    let signed_in = app
        .anon(Method::POST, "/auth/v1/token?grant_type=password")
        .json(&json!({"email": "owner@example.com", "password": "correct horse battery"}))
        .send()
        .await;
    assert_eq!(signed_in.status, StatusCode::OK, "{}", signed_in.body);
    assert_eq!(signed_in.json()["user"]["email"], "owner@example.com");

    let buckets = app.service(Method::GET, "/storage/v1/bucket").send().await;
    assert_eq!(buckets.status, StatusCode::OK, "{}", buckets.body);
    assert_eq!(buckets.json()[0]["id"], "photos");
    let objects = app
        .service(Method::POST, "/storage/v1/object/list/photos")
        .json(&json!({"prefix": ""}))
        .send()
        .await;
    assert_eq!(objects.status, StatusCode::OK, "{}", objects.body);
    assert_eq!(objects.json()[0]["name"], "cache.txt");
}

/// The services' migrations make the very schema an existing database (as an earlier emulator
/// wrote it) gets when it is opened, table by table, index by index and trigger by trigger.
#[test]
fn a_new_database_has_the_schema_existing_ones_have() {
    let dir = tempfile::tempdir().unwrap();
    let schema = |path: &std::path::Path| {
        rusqlite::Connection::open(path)
            .unwrap()
            .prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .unwrap()
            .collect::<Result<Vec<(String, String, Option<String>)>, _>>()
            .unwrap()
    };
    let existing = dir.path().join("existing.sqlite3");
    rusqlite::Connection::open(&existing)
        .unwrap()
        .execute_batch(include_str!("fixtures/existing-database.sql"))
        .unwrap();
    drop(AppState::open(&DbLocation::File(existing.clone()), DEFAULT_JWT_SECRET).unwrap());
    let fresh = dir.path().join("fresh.sqlite3");
    drop(AppState::open(&DbLocation::File(fresh.clone()), DEFAULT_JWT_SECRET).unwrap());
    let made = schema(&fresh);
    assert!(made.iter().any(|(_, name, _)| name == "storage_objects"));
    assert_eq!(made, schema(&existing));
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
