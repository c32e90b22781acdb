//! The emulator binary killed with SIGKILL in the middle of a stream of inserts into a file
//! database, then restarted on it: every acknowledged insert is there, exactly once.

use crate::wire::{request, Binary, Client, TABLE_URL};
use axum::http::{Method, StatusCode};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const WRITERS: usize = 4;
const ROUNDS: usize = 3;
/// Acknowledged inserts to wait for before each kill.
const ACKS_BEFORE_KILL: usize = 150;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_acknowledged_insert_survives_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.sqlite3");
    let db = db.to_str().unwrap();
    let acknowledged: Arc<Mutex<Vec<String>>> = Arc::default();
    for round in 0..ROUNDS {
        let binary = Binary::start(&["--db", db]);
        let before = acknowledged.lock().unwrap().len();
        let mut writers = Vec::new();
        for writer in 0..WRITERS {
            let mut client = Client::connect(binary.address).await.unwrap();
            let (key, acknowledged) = (binary.anon.clone(), Arc::clone(&acknowledged));
            writers.push(tokio::spawn(async move {
                for index in 0.. {
                    let name = format!("round {round} writer {writer} insert {index}");
                    let body = json!({"name": name, "message": "durable"}).to_string();
                    match client
                        .send(request(Method::POST, TABLE_URL, &key, Some(&body)))
                        .await
                    {
                        Ok(reply) if reply.status == StatusCode::CREATED => {
                            acknowledged.lock().unwrap().push(name);
                        }
                        Ok(reply) => panic!("{}: {}", reply.status, reply.text()),
                        // The kill: this insert was never acknowledged.
                        Err(_) => return,
                    }
                }
            }));
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        while acknowledged.lock().unwrap().len() < before + ACKS_BEFORE_KILL {
            assert!(Instant::now() < deadline, "inserts too slow");
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        binary.kill();
        for writer in writers {
            tokio::time::timeout(Duration::from_secs(10), writer)
                .await
                .expect("writers notice the kill")
                .unwrap();
        }
    }

    let binary = Binary::start(&["--db", db]);
    let mut client = Client::connect(binary.address).await.unwrap();
    let reply = client
        .send(request(
            Method::GET,
            &format!("{TABLE_URL}?select=id,name,message&order=id"),
            &binary.service,
            None,
        ))
        .await
        .unwrap();
    let stored = reply.json().as_array().cloned().unwrap();
    let mut counts: HashMap<String, usize> = HashMap::new();
    for row in &stored {
        assert_eq!(row["message"], "durable", "{row}");
        *counts
            .entry(row["name"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    assert!(
        counts.values().all(|count| *count == 1),
        "an insert is stored twice"
    );
    let acknowledged = acknowledged.lock().unwrap();
    assert!(acknowledged.len() >= ROUNDS * ACKS_BEFORE_KILL);
    let missing: Vec<&String> = acknowledged
        .iter()
        .filter(|name| !counts.contains_key(*name))
        .collect();
    assert!(missing.is_empty(), "acknowledged but lost: {missing:?}");
    // Beyond the acknowledged ones, only inserts in flight at a kill may have landed.
    assert!(stored.len() <= acknowledged.len() + ROUNDS * WRITERS);
    let ids: Vec<i64> = stored
        .iter()
        .map(|row| row["id"].as_i64().unwrap())
        .collect();
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
}
