//! `geocache-emulator owner add|list|remove` on a database file that a server is serving: each
//! command takes effect with the server's next request, with no restart and nothing cached.

use crate::support::{DbResult, TestApp, TABLE_URL};
use axum::http::{Method, StatusCode};
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const PASSWORD: &str = "a long enough password";

/// Runs the binary's `owner` command with `input` on standard input (not a terminal).
fn owner(db: &Path, args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_geocache-emulator"))
        .arg("owner")
        .args(&args[..1])
        .arg("--db")
        .arg(db)
        .args(&args[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that needs no password may exit before reading it.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let output = child.wait_with_output().unwrap();
    (
        output.status.success(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[tokio::test]
async fn owner_commands_change_what_a_serving_emulator_allows_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("emulator.sqlite3");
    let app = TestApp::with_state(
        AppState::open(&DbLocation::File(db.clone()), DEFAULT_JWT_SECRET).unwrap(),
    );
    let rows = app
        .seed(json!([{"name": "a", "message": "m"}, {"name": "b", "message": "m"}]))
        .await;

    let (ok, out, err) = owner(&db, &["add", "Owner@Example.com"], &format!("{PASSWORD}\n"));
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "owner@example.com: account created and named an owner\n"
    );
    // The account signs in with the password given on standard input.
    let signed_in = app
        .anon(Method::POST, "/auth/v1/token?grant_type=password")
        .json(&json!({"email": "owner@example.com", "password": PASSWORD}))
        .send()
        .await;
    assert_eq!(signed_in.status, StatusCode::OK, "{}", signed_in.body);
    let user_id = signed_in.json()["user"]["id"].as_str().unwrap().to_owned();
    // The same account at aal2, as after its second factor.
    let now = app.state.clock.now_seconds();
    let token = app.state.keys.sign(&json!({
        "role": "authenticated", "sub": user_id, "aal": "aal2", "iat": now, "exp": now + 3600,
    }));
    let remove = |id: &serde_json::Value| {
        app.bare(Method::DELETE, &format!("{TABLE_URL}?id=eq.{id}"))
            .header("apikey", &app.anon)
            .header("authorization", &format!("Bearer {token}"))
            .header("prefer", "return=representation")
            .send()
    };
    assert_eq!(remove(&rows[0]["id"]).await.json(), json!([rows[0]]));

    let (ok, out, _) = owner(&db, &["list"], "");
    assert!(ok);
    assert_eq!(out, "owner@example.com\n");
    let (ok, out, _) = owner(&db, &["add", "owner@example.com"], "");
    assert!(ok, "an existing account needs no password");
    assert_eq!(out, "owner@example.com: already an owner\n");

    let (ok, out, err) = owner(&db, &["remove", "owner@example.com"], "");
    assert!(ok, "{err}");
    assert_eq!(out, "owner@example.com: no longer an owner\n");
    assert_eq!(remove(&rows[1]["id"]).await.json(), json!([]));
    assert_eq!(app.all_rows().await, [rows[1].clone()]);
    let (_, out, _) = owner(&db, &["list"], "");
    assert_eq!(out, "");
    // The account itself stays.
    let accounts = app
        .state
        .db
        .call(|connection| -> DbResult<i64> {
            Ok(connection.query_row("SELECT count(*) FROM auth_users", [], |row| row.get(0))?)
        })
        .await
        .unwrap();
    assert_eq!(accounts, 1);
}

#[test]
fn bad_input_is_refused_in_words_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("emulator.sqlite3");
    for (args, input, message) in [
        (
            &["add", "not-an-address"][..],
            "x\n",
            "Unable to validate email address: invalid format",
        ),
        (
            &["add", "owner@example.com"],
            "\n",
            "Signup requires a valid password",
        ),
        (
            &["add", "owner@example.com"],
            "12345\n",
            "Password should be at least 6 characters.",
        ),
        (
            &["remove", "nobody@example.com"],
            "",
            "no account has the address nobody@example.com",
        ),
    ] {
        let (ok, out, err) = owner(&db, args, input);
        assert!(!ok, "{args:?}");
        assert_eq!(out, "");
        assert!(err.contains(message), "{args:?}: {err}");
    }
    let (ok, out, _) = owner(&db, &["list"], "");
    assert!(ok);
    assert_eq!(out, "");
    let (ok, _, err) = owner(Path::new(":memory:"), &["list"], "");
    assert!(!ok);
    assert!(err.contains("need a database file"), "{err}");
}
