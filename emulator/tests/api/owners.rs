//! The owner's side as the migration `..._geocache_logs_owners.sql` builds it: removing entries
//! (an owner at aal2 only), the removed entries kept for the owner and listed and restored through
//! `/rest/v1/rpc`, the changes anon reads, and the triggers that record every writer's removals
//! and imports. Tokens are signed here with the claims GoTrue gives (`sub`, `aal`); the sessions'
//! own MFA is the auth tests' subject, and the parity table in tests/postgres signs in for real.

use crate::support::{DbResult, RequestSpec, TestApp, TestResponse, TABLE_URL};
use axum::http::{Method, StatusCode};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use geocache_emulator::clock::ManualClock;
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::rest::owners;
use geocache_emulator::state::AppState;
use serde_json::{json, Value};

const REMOVED: &str = "/rest/v1/rpc/removed_geocache_logs";
const RESTORE: &str = "/rest/v1/rpc/restore_geocache_log";
const CHANGES: &str = "/rest/v1/geocache_log_changes";
const OWNER_ID: &str = "6ba7b810-9dad-41d1-80b4-00c04fd430c8";
const WALKER_ID: &str = "6ba7b811-9dad-41d1-80b4-00c04fd430c8";
const DAY: i64 = 86_400;

struct Owned {
    app: TestApp,
    clock: ManualClock,
}

/// An app on a manual clock with two accounts, the first of them an owner.
async fn owned() -> Owned {
    let clock = ManualClock::starting_at_micros(1_800_000_000_000_000);
    let state = AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET)
        .unwrap()
        .with_clock(clock.clock());
    let app = TestApp::with_state(state);
    app.state
        .db
        .call(|connection| -> DbResult<()> {
            for (id, email) in [(OWNER_ID, "owner@example.com"), (WALKER_ID, "walker@example.com")] {
                connection.execute(
                    "INSERT INTO auth_users (id, email, encrypted_password, email_confirmed_at, \
                     raw_app_meta_data, raw_user_meta_data, identity_id, identity_data, created_at, \
                     updated_at) VALUES (?, ?, '', 0, '{}', '{}', ?, '{}', 0, 0)",
                    [id, email, id],
                )?;
            }
            owners::add(connection, OWNER_ID)?;
            Ok(())
        })
        .await
        .unwrap();
    Owned { app, clock }
}

impl Owned {
    /// An access token of `user_id`'s session at `aal`, as GoTrue signs it.
    fn token(&self, user_id: &str, aal: &str) -> String {
        let now = self.app.state.clock.now_seconds();
        self.app.state.keys.sign(&json!({
            "aud": "authenticated", "role": "authenticated", "sub": user_id, "aal": aal,
            "iat": now, "exp": now + 3600, "session_id": "6ba7b812-9dad-41d1-80b4-00c04fd430c8",
        }))
    }

    fn as_user(&self, method: Method, uri: &str, token: &str) -> RequestSpec {
        self.app
            .bare(method, uri)
            .header("apikey", &self.app.anon)
            .header("authorization", &format!("Bearer {token}"))
    }

    fn owner(&self, method: Method, uri: &str) -> RequestSpec {
        let token = self.token(OWNER_ID, "aal2");
        self.as_user(method, uri, &token)
    }

    async fn remove(&self, id: &Value) -> TestResponse {
        self.owner(Method::DELETE, &format!("{TABLE_URL}?id=eq.{id}"))
            .header("prefer", "return=representation")
            .send()
            .await
    }

    async fn removed(&self, query: &str) -> Value {
        let response = self
            .owner(Method::POST, &format!("{REMOVED}{query}"))
            .json(&json!({}))
            .send()
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        response.json()
    }

    async fn changes(&self) -> Vec<(i64, String)> {
        let response = self
            .app
            .anon(
                Method::GET,
                &format!("{CHANGES}?select=entry_id,change&order=seq"),
            )
            .send()
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        response
            .json()
            .as_array()
            .unwrap()
            .iter()
            .map(|change| {
                (
                    change["entry_id"].as_i64().unwrap(),
                    change["change"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }

    /// Who removed entry `id`, as the removed table records it.
    async fn removed_by(&self, id: i64) -> Option<String> {
        self.app
            .state
            .db
            .call(move |connection| -> DbResult<Option<String>> {
                Ok(connection.query_row(
                    "SELECT removed_by FROM removed_geocache_logs WHERE id = ?",
                    [id],
                    |row| row.get(0),
                )?)
            })
            .await
            .unwrap()
    }
}

fn signs(count: usize) -> Value {
    Value::Array(
        (1..=count)
            .map(|index| json!({"name": format!("visitor {index}"), "message": "found it"}))
            .collect(),
    )
}

#[tokio::test]
async fn an_owner_at_aal2_removes_an_entry_that_is_kept_listed_and_recorded() {
    let owned = owned().await;
    let rows = owned.app.seed(signs(2)).await;
    let response = owned.remove(&rows[0]["id"]).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    assert_eq!(response.json(), json!([rows[0]]));
    assert_eq!(owned.app.all_rows().await, [rows[1].clone()]);

    let removed = owned.removed("").await;
    let removed_at = owned.app.state.clock.now_micros();
    assert_eq!(
        removed,
        json!([{
            "id": rows[0]["id"], "created_at": rows[0]["created_at"], "name": "visitor 1",
            "message": "found it",
            "removed_at": geocache_emulator::timestamp::to_json_text(removed_at),
        }])
    );
    let id = rows[0]["id"].as_i64().unwrap();
    assert_eq!(owned.removed_by(id).await.as_deref(), Some(OWNER_ID));
    // A visitor's sign records nothing; the removal does.
    assert_eq!(owned.changes().await, [(id, "removed".to_owned())]);
}

#[tokio::test]
async fn no_one_else_removes_anything_and_anon_is_refused() {
    let owned = owned().await;
    let rows = owned.app.seed(signs(1)).await;
    let id = &rows[0]["id"];
    let uri = format!("{TABLE_URL}?id=eq.{id}");
    for token in [
        owned.token(OWNER_ID, "aal1"),
        owned.token(WALKER_ID, "aal2"),
        owned.token("6ba7b8ff-9dad-41d1-80b4-00c04fd430c8", "aal2"),
    ] {
        let response = owned.as_user(Method::DELETE, &uri, &token).send().await;
        assert_eq!(response.status, StatusCode::NO_CONTENT, "{}", response.body);
    }
    owned
        .app
        .anon(Method::DELETE, &uri)
        .send()
        .await
        .assert_postgrest_error(
            StatusCode::UNAUTHORIZED,
            "42501",
            "permission denied for table geocache_logs",
        );
    // An owner removed from the owners a moment ago, with a session still at aal2.
    owned
        .app
        .state
        .db
        .call(|connection| -> DbResult<bool> { Ok(owners::remove(connection, OWNER_ID)?) })
        .await
        .unwrap();
    assert_eq!(owned.remove(id).await.body, "[]");
    assert_eq!(owned.app.all_rows().await, rows);
    assert!(owned.changes().await.is_empty());
}

#[tokio::test]
async fn a_token_tampered_to_claim_aal2_is_refused() {
    let owned = owned().await;
    let rows = owned.app.seed(signs(1)).await;
    let aal1 = owned.token(OWNER_ID, "aal1");
    let parts: Vec<&str> = aal1.split('.').collect();
    let mut claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    claims["aal"] = json!("aal2");
    let tampered = format!(
        "{}.{}.{}",
        parts[0],
        URL_SAFE_NO_PAD.encode(claims.to_string()),
        parts[2]
    );
    for (method, uri) in [
        (
            Method::DELETE,
            format!("{TABLE_URL}?id=eq.{}", rows[0]["id"]),
        ),
        (Method::POST, REMOVED.to_owned()),
    ] {
        owned
            .as_user(method, &uri, &tampered)
            .json(&json!({}))
            .send()
            .await
            .assert_postgrest_error(
                StatusCode::UNAUTHORIZED,
                "PGRST301",
                "JWT cryptographic operation failed",
            );
    }
    assert_eq!(owned.app.all_rows().await, rows);
}

#[tokio::test]
async fn a_restore_puts_the_entry_back_as_it_was_and_records_it_added() {
    let owned = owned().await;
    let rows = owned.app.seed(signs(2)).await;
    owned.remove(&rows[0]["id"]).await;
    owned.clock.advance_seconds(60);
    let response = owned
        .owner(Method::POST, RESTORE)
        .json(&json!({"entry_id": rows[0]["id"]}))
        .send()
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    assert_eq!(response.json(), json!([rows[0]]));
    assert_eq!(owned.app.all_rows().await, rows);
    assert_eq!(owned.removed("").await, json!([]));
    let id = rows[0]["id"].as_i64().unwrap();
    assert_eq!(
        owned.changes().await,
        [(id, "removed".to_owned()), (id, "added".to_owned())]
    );
    // A new sign gets a new id: the restored one is not reused.
    let later = owned.app.seed(signs(1)).await;
    assert!(later[0]["id"].as_i64().unwrap() > rows[1]["id"].as_i64().unwrap());

    // Restoring it again, or an id never removed, is PL/pgSQL's P0002, answered with 500.
    for entry_id in [json!(id), json!(999), Value::Null] {
        let shown = entry_id
            .as_i64()
            .map_or("null".to_owned(), |id| id.to_string());
        owned
            .owner(Method::POST, RESTORE)
            .json(&json!({ "entry_id": entry_id }))
            .send()
            .await
            .assert_postgrest_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "P0002",
                &format!("Entry {shown} is not a removed entry."),
            );
    }
    owned
        .owner(Method::POST, RESTORE)
        .json(&json!({"entry_id": "seven"}))
        .send()
        .await
        .assert_postgrest_error(
            StatusCode::BAD_REQUEST,
            "22P02",
            "invalid input syntax for type bigint: \"seven\"",
        );
}

#[tokio::test]
async fn only_an_owner_at_aal2_may_list_or_restore() {
    let owned = owned().await;
    let rows = owned.app.seed(signs(1)).await;
    owned.remove(&rows[0]["id"]).await;
    let restore = json!({"entry_id": rows[0]["id"]});
    for (path, body, action) in [
        (REMOVED, json!({}), "list removed entries"),
        (RESTORE, restore.clone(), "restore removed entries"),
    ] {
        for token in [
            owned.token(OWNER_ID, "aal1"),
            owned.token(WALKER_ID, "aal2"),
        ] {
            owned
                .as_user(Method::POST, path, &token)
                .json(&body)
                .send()
                .await
                .assert_postgrest_error(
                    StatusCode::FORBIDDEN,
                    "42501",
                    &format!(
                        "Only the logbook's owner, signed in with a second factor, may {action}."
                    ),
                );
        }
        // EXECUTE is granted to authenticated only.
        let function = path.rsplit('/').next().unwrap();
        for (request, status) in [
            (owned.app.anon(Method::POST, path), StatusCode::UNAUTHORIZED),
            (owned.app.service(Method::POST, path), StatusCode::FORBIDDEN),
        ] {
            request.json(&body).send().await.assert_postgrest_error(
                status,
                "42501",
                &format!("permission denied for function {function}"),
            );
        }
    }
    assert!(owned.app.all_rows().await.is_empty());
}

#[tokio::test]
async fn functions_are_found_by_name_arguments_and_method() {
    let owned = owned().await;
    owned
        .owner(Method::POST, "/rest/v1/rpc/drop_everything")
        .json(&json!({}))
        .send()
        .await
        .assert_postgrest_error(
            StatusCode::NOT_FOUND,
            "PGRST202",
            "Could not find the function public.drop_everything without parameters in the schema cache",
        );
    let wrong_argument = owned
        .owner(Method::POST, RESTORE)
        .json(&json!({"id": 1}))
        .send()
        .await
        .assert_postgrest_error(
            StatusCode::NOT_FOUND,
            "PGRST202",
            "Could not find the function public.restore_geocache_log(id) in the schema cache",
        );
    assert_eq!(
        wrong_argument["hint"],
        "Perhaps you meant to call the function public.restore_geocache_log(entry_id)"
    );
    // The list only reads (STABLE): GET works too; the restore writes: POST only.
    let listed = owned.owner(Method::GET, REMOVED).send().await;
    assert_eq!(
        (listed.status, listed.body.as_str()),
        (StatusCode::OK, "[]")
    );
    let refused = owned.owner(Method::GET, RESTORE).send().await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND, "{}", refused.body);
    let refused = owned
        .owner(Method::PATCH, RESTORE)
        .json(&json!({"entry_id": 1}))
        .send()
        .await;
    refused.assert_postgrest_error(
        StatusCode::METHOD_NOT_ALLOWED,
        "PGRST101",
        "Cannot use the PATCH method on RPC",
    );
}

#[tokio::test]
async fn the_removed_list_pages_newest_removed_first_under_the_row_cap() {
    let owned = owned().await;
    let app = TestApp::with_state(owned.app.state.clone().with_max_rows(3));
    let owned = Owned {
        app,
        clock: owned.clock,
    };
    let rows = owned.app.seed(signs(7)).await;
    // Removed one a second, so removed_at orders them; two share a second to test the id tiebreak.
    for (index, row) in rows.iter().enumerate() {
        if index != 3 {
            owned.clock.advance_seconds(1);
        }
        assert_eq!(owned.remove(&row["id"]).await.status, StatusCode::OK);
    }
    let everything = owned.removed("?select=id").await;
    assert_eq!(everything.as_array().unwrap().len(), 3, "the row cap");

    let mut seen = Vec::new();
    let mut query = "?select=id,removed_at&order=removed_at.desc,id.desc&limit=3".to_owned();
    loop {
        let page = owned.removed(&query).await;
        let page = page.as_array().unwrap();
        let Some(last) = page.last() else { break };
        seen.extend(page.iter().map(|row| row["id"].as_i64().unwrap()));
        // As URLSearchParams writes it: `+` would read as a space.
        let at = last["removed_at"].as_str().unwrap().replace('+', "%2B");
        let id = &last["id"];
        query = format!(
            "?select=id,removed_at&order=removed_at.desc,id.desc&limit=3\
             &or=(removed_at.lt.%22{at}%22,and(removed_at.eq.%22{at}%22,id.lt.{id}))"
        );
    }
    let mut expected: Vec<i64> = rows.iter().map(|row| row["id"].as_i64().unwrap()).collect();
    expected.reverse();
    assert_eq!(seen, expected);
}

#[tokio::test]
async fn anon_reads_the_changes_by_seq_under_the_row_cap_and_writes_none() {
    let owned = owned().await;
    let app = TestApp::with_state(owned.app.state.clone().with_max_rows(2));
    let rows = app.seed(signs(3)).await;
    for row in &rows {
        let response = app
            .service(Method::DELETE, &format!("{TABLE_URL}?id=eq.{}", row["id"]))
            .send()
            .await;
        assert_eq!(response.status, StatusCode::NO_CONTENT);
    }
    let read = |query: &str| app.anon(Method::GET, &format!("{CHANGES}{query}")).send();
    let newest = read("?select=seq&order=seq.desc&limit=1").await;
    assert_eq!(newest.json(), json!([{"seq": 3}]));
    let page = read("?select=seq,entry_id,change&seq=gt.1&order=seq.asc&limit=10").await;
    assert_eq!(
        page.json(),
        json!([
            {"seq": 2, "entry_id": rows[1]["id"], "change": "removed"},
            {"seq": 3, "entry_id": rows[2]["id"], "change": "removed"},
        ])
    );
    let capped = read("").await;
    assert_eq!(capped.json().as_array().unwrap().len(), 2);
    // `select=*` in table order.
    assert!(
        capped.body.starts_with(r#"[{"seq":1,"entry_id":"#)
            && capped
                .body
                .contains(r#","change":"removed","changed_at":""#),
        "{}",
        capped.body
    );
    for method in [Method::POST, Method::PATCH, Method::DELETE] {
        app.anon(method.clone(), &format!("{CHANGES}?seq=gt.0"))
            .json(&json!({"entry_id": 1, "change": "added"}))
            .send()
            .await
            .assert_postgrest_error(
                StatusCode::UNAUTHORIZED,
                "42501",
                "permission denied for table geocache_log_changes",
            );
        app.service(method, &format!("{CHANGES}?seq=gt.0"))
            .json(&json!({"entry_id": 1, "change": "added"}))
            .send()
            .await
            .assert_postgrest_error(
                StatusCode::FORBIDDEN,
                "42501",
                "permission denied for table geocache_log_changes",
            );
    }
    // The removed entries and the owners are not exposed at all.
    for table in ["removed_geocache_logs", "logbook_owners"] {
        let response = app
            .anon(Method::GET, &format!("/rest/v1/{table}"))
            .send()
            .await;
        assert_eq!(response.json()["code"], "PGRST205", "{table}");
    }
}

/// What the import command and `sqlite3` by hand do: write the file with no request around it.
#[tokio::test]
async fn every_writer_records_removals_and_imported_entries() {
    let owned = owned().await;
    let now = owned.app.state.clock.now_micros();
    let (removals, changes) = owned
        .app
        .state
        .db
        .call(move |connection| -> DbResult<(i64, Vec<(i64, String)>)> {
            connection.execute_batch(
                "INSERT INTO geocache_logs (id, created_at, name, message) \
                 VALUES (41, 1700000000000000, 'imported', 'an old entry');",
            )?;
            // An entry stamped now (ahead of the wall clock here): no change recorded.
            connection.execute(
                "INSERT INTO geocache_logs (id, created_at, name, message) VALUES (42, ?, 'new', 'm')",
                [now + 3_600_000_000],
            )?;
            connection.execute("DELETE FROM geocache_logs WHERE id = 41", [])?;
            let removals = connection.query_row(
                "SELECT count(*) FROM removed_geocache_logs WHERE id = 41 AND removed_by IS NULL",
                [],
                |row| row.get(0),
            )?;
            let mut statement =
                connection.prepare("SELECT entry_id, change FROM geocache_log_changes ORDER BY seq")?;
            let changes = statement
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<Result<_, _>>()?;
            Ok((removals, changes))
        })
        .await
        .unwrap();
    assert_eq!(removals, 1);
    assert_eq!(
        changes,
        [(41, "added".to_owned()), (41, "removed".to_owned())]
    );
}

#[tokio::test]
async fn removed_entries_are_kept_90_days_and_changes_30() {
    let owned = owned().await;
    let rows = owned.app.seed(signs(3)).await;
    owned.remove(&rows[0]["id"]).await;
    owned.clock.advance_seconds(31 * DAY);
    // Each removal forgets what is older than its limit.
    owned.remove(&rows[1]["id"]).await;
    let ids = |list: &Value| -> Vec<i64> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|row| row["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(
        owned.changes().await,
        [(rows[1]["id"].as_i64().unwrap(), "removed".to_owned())]
    );
    assert_eq!(
        ids(&owned.removed("?select=id&order=id").await),
        [
            rows[0]["id"].as_i64().unwrap(),
            rows[1]["id"].as_i64().unwrap()
        ]
    );
    owned.clock.advance_seconds(60 * DAY);
    owned.remove(&rows[2]["id"]).await;
    assert_eq!(
        ids(&owned.removed("?select=id&order=id").await),
        [
            rows[1]["id"].as_i64().unwrap(),
            rows[2]["id"].as_i64().unwrap()
        ]
    );
}

#[tokio::test]
async fn deleting_an_account_keeps_what_it_removed_and_ends_its_ownership() {
    let owned = owned().await;
    let rows = owned.app.seed(signs(1)).await;
    owned.remove(&rows[0]["id"]).await;
    owned
        .app
        .state
        .db
        .call(|connection| -> DbResult<()> {
            connection.execute("DELETE FROM auth_users WHERE id = ?", [OWNER_ID])?;
            Ok(())
        })
        .await
        .unwrap();
    let id = rows[0]["id"].as_i64().unwrap();
    assert_eq!(owned.removed_by(id).await, None);
    let listed = owned
        .owner(Method::POST, REMOVED)
        .json(&json!({}))
        .send()
        .await;
    assert_eq!(listed.status, StatusCode::FORBIDDEN, "{}", listed.body);
}
