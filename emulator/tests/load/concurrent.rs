//! 1,000 inserts from 8 clients at once: every acknowledged insert is stored exactly once, ids are
//! unique and increase with `created_at`.

use crate::wire::{request, Served, TABLE_URL};
use axum::http::{Method, StatusCode};
use chrono::DateTime;
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::Barrier;

const CLIENTS: usize = 8;
const INSERTS_PER_CLIENT: usize = 125;

fn micros(timestamp: &Value) -> i64 {
    DateTime::parse_from_rfc3339(timestamp.as_str().unwrap())
        .unwrap()
        .timestamp_micros()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_concurrent_inserts_are_each_stored_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let location = DbLocation::File(dir.path().join("load.sqlite3"));
    let served = Served::start(AppState::open(&location, DEFAULT_JWT_SECRET).unwrap()).await;
    let start = Arc::new(Barrier::new(CLIENTS));
    let mut tasks = Vec::new();
    for client_index in 0..CLIENTS {
        let mut client = served.client().await;
        let (key, start) = (served.anon.clone(), Arc::clone(&start));
        tasks.push(tokio::spawn(async move {
            start.wait().await;
            let mut acknowledged = Vec::new();
            for insert_index in 0..INSERTS_PER_CLIENT {
                let name = format!("client {client_index} insert {insert_index}");
                let body = json!({"name": name, "message": format!("message of {name}")});
                let mut insert = request(Method::POST, TABLE_URL, &key, Some(&body.to_string()));
                insert
                    .headers_mut()
                    .insert("prefer", "return=representation".parse().unwrap());
                let reply = client.send(insert).await.unwrap();
                assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text());
                acknowledged.push(reply.json()[0].clone());
            }
            acknowledged
        }));
    }
    let mut acknowledged = Vec::new();
    for task in tasks {
        let rows = task.await.unwrap();
        // One client's inserts are sequential: their ids increase.
        let ids: Vec<i64> = rows.iter().map(|row| row["id"].as_i64().unwrap()).collect();
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{ids:?}");
        acknowledged.extend(rows);
    }
    assert_eq!(acknowledged.len(), CLIENTS * INSERTS_PER_CLIENT);

    let mut client = served.client().await;
    let reply = client
        .send(request(
            Method::GET,
            &format!("{TABLE_URL}?order=id"),
            &served.service,
            None,
        ))
        .await
        .unwrap();
    let stored = reply.json().as_array().cloned().unwrap();
    assert_eq!(stored.len(), acknowledged.len());
    let mut by_name: HashMap<&str, Vec<&Value>> = HashMap::new();
    for row in &stored {
        by_name
            .entry(row["name"].as_str().unwrap())
            .or_default()
            .push(row);
        assert_eq!(
            row["message"].as_str().unwrap(),
            format!("message of {}", row["name"].as_str().unwrap())
        );
    }
    for ack in &acknowledged {
        let rows = &by_name[ack["name"].as_str().unwrap()];
        assert_eq!(rows.len(), 1, "{ack} is stored {} times", rows.len());
        assert_eq!(rows[0], ack, "the stored row is the acknowledged one");
    }
    // Ids are unique and increasing (the order of the read), and `created_at` never goes back.
    let ids: Vec<i64> = stored
        .iter()
        .map(|row| row["id"].as_i64().unwrap())
        .collect();
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    let times: Vec<i64> = stored
        .iter()
        .map(|row| micros(&row["created_at"]))
        .collect();
    assert!(
        times.windows(2).all(|pair| pair[0] <= pair[1]),
        "created_at goes back somewhere along the ids"
    );
    served.stop().await;
}
