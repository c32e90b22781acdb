//! A served emulator with a plan installed through the control endpoint, and the table read
//! straight from the database (reads over HTTP would be faulted too).

use crate::support::DbResult;
use crate::wire::{request, Served, TABLE_URL};
use axum::http::{Method, StatusCode};
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use serde_json::{json, Value};

pub async fn served() -> Served {
    Served::start(AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET).unwrap()).await
}

/// Installs `plan` and returns the control endpoint's answer.
pub async fn install(served: &Served, plan: Value) -> Value {
    let mut client = served.client().await;
    let reply = client
        .send(request(
            Method::POST,
            "/emulator/v1/faults",
            &served.service,
            Some(&plan.to_string()),
        ))
        .await
        .unwrap();
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    reply.json()
}

/// Per rule, how many requests matched and how many were faulted.
pub fn stats(served: &Served) -> Vec<(u64, u64)> {
    served
        .state
        .faults
        .report()
        .stats
        .iter()
        .map(|rule| (rule.matched, rule.fired))
        .collect()
}

/// Inserts entries as the service role, before any plan is installed.
pub async fn seed(served: &Served, names: &[&str]) {
    let mut client = served.client().await;
    for name in names {
        let body = json!({"name": name, "message": format!("message of {name}")}).to_string();
        let reply = client
            .send(request(
                Method::POST,
                TABLE_URL,
                &served.service,
                Some(&body),
            ))
            .await
            .unwrap();
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
    }
}

/// The names in the table, by id, read from the database directly.
pub async fn stored_names(served: &Served) -> Vec<String> {
    served
        .state
        .db
        .call(|connection| -> DbResult<_> {
            let mut statement = connection.prepare("SELECT name FROM geocache_logs ORDER BY id")?;
            let names = statement
                .query_map([], |row| row.get(0))?
                .collect::<Result<Vec<String>, _>>()?;
            Ok(names)
        })
        .await
        .unwrap()
}

pub fn insert_body(name: &str) -> String {
    json!({"name": name, "message": "m"}).to_string()
}
