//! Added latency, and responses that arrive in the opposite order of their requests.

use super::support::{insert_body, install, seed, served, stats};
use crate::wire::{request, TABLE_URL};
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn names(body: &Value) -> Vec<&str> {
    body.as_array()
        .unwrap()
        .iter()
        .map(|row| row["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn latency_delays_the_matching_requests() {
    let served = served().await;
    install(
        &served,
        json!({"seed": 5, "rules": [
            {"methods": ["GET"], "limit": 1, "fault": {"kind": "latency", "ms": 300}},
            {"methods": ["GET"], "fault": {"kind": "latency", "ms": [150, 200]}},
        ]}),
    )
    .await;
    let mut client = served.client().await;
    let started = Instant::now();
    let reply = client
        .send(request(Method::GET, TABLE_URL, &served.anon, None))
        .await
        .unwrap();
    assert_eq!(reply.status, StatusCode::OK);
    // Both rules fire on the first read: their delays add up.
    assert!(
        started.elapsed() >= Duration::from_millis(450),
        "{:?}",
        started.elapsed()
    );
    let started = Instant::now();
    client
        .send(request(Method::GET, TABLE_URL, &served.anon, None))
        .await
        .unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(150),
        "{:?}",
        started.elapsed()
    );
    client
        .send(request(
            Method::POST,
            TABLE_URL,
            &served.anon,
            Some(&insert_body("n")),
        ))
        .await
        .unwrap();
    assert_eq!(stats(&served), [(2, 1), (2, 2)]);
}

#[tokio::test]
async fn a_held_read_arrives_after_the_next_one_with_older_rows() {
    let served = served().await;
    seed(&served, &["ada"]).await;
    install(
        &served,
        json!({"rules": [{"methods": ["GET"], "paths": [TABLE_URL], "every": 2,
        "fault": {"kind": "out_of_order", "max_hold_ms": 20000}}]}),
    )
    .await;
    let read = || request(Method::GET, TABLE_URL, &served.anon, None);
    let mut first = served.client().await;
    assert_eq!(names(&first.send(read()).await.unwrap().json()), ["ada"]);

    // The second read is processed now but held back...
    let mut second = served.client().await;
    let request_two = read();
    let held = tokio::spawn(async move { second.send(request_two).await.unwrap() });
    let deadline = Instant::now() + Duration::from_secs(10);
    while stats(&served) != [(2, 1)] {
        assert!(Instant::now() < deadline, "the second read never arrived");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // Time for its handler to read the table (the response is held after that).
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!held.is_finished());

    // ...a sign and a third read overtake it.
    let mut third = served.client().await;
    let insert = third
        .send(request(
            Method::POST,
            TABLE_URL,
            &served.anon,
            Some(&insert_body("bob")),
        ))
        .await
        .unwrap();
    assert_eq!(insert.status, StatusCode::CREATED);
    assert!(!held.is_finished());
    let newer = third.send(read()).await.unwrap();
    assert_eq!(names(&newer.json()), ["ada", "bob"]);

    let older = tokio::time::timeout(Duration::from_secs(5), held)
        .await
        .expect("released once the later read is answered")
        .unwrap();
    assert_eq!(older.status, StatusCode::OK);
    assert_eq!(
        names(&older.json()),
        ["ada"],
        "the held answer is the older list"
    );
}

#[tokio::test]
async fn a_held_response_is_released_after_its_hold_without_a_later_request() {
    let served = served().await;
    install(
        &served,
        json!({"rules": [{"methods": ["GET"],
        "fault": {"kind": "out_of_order", "max_hold_ms": 300}}]}),
    )
    .await;
    let mut client = served.client().await;
    let started = Instant::now();
    let reply = client
        .send(request(Method::GET, TABLE_URL, &served.anon, None))
        .await
        .unwrap();
    assert_eq!(reply.status, StatusCode::OK);
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
}
