//! Connections closed before or in the middle of a response, seen byte by byte.

use super::support::{insert_body, install, seed, served, stored_names};
use crate::wire::{raw_exchange, raw_request, request, TABLE_URL};
use axum::http::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn drop_before_response_closes_without_a_byte() {
    let served = served().await;
    seed(&served, &["ada"]).await;
    install(
        &served,
        json!({"rules": [{"methods": ["GET"], "limit": 1,
        "fault": {"kind": "drop_before_response"}}]}),
    )
    .await;
    let raw = raw_exchange(
        served.address,
        &raw_request("GET", TABLE_URL, &served.anon, None),
    )
    .await;
    assert!(raw.bytes.is_empty(), "{}", raw.text());
    // Only that request: the next one is answered.
    let raw = raw_exchange(
        served.address,
        &raw_request("GET", TABLE_URL, &served.anon, None),
    )
    .await;
    assert!(
        raw.text().starts_with("HTTP/1.1 200 OK\r\n"),
        "{}",
        raw.text()
    );
}

#[tokio::test]
async fn a_dropped_insert_lands_only_when_applied() {
    let served = served().await;
    for (apply, name) in [(false, "lost"), (true, "landed unanswered")] {
        install(
            &served,
            json!({"rules": [{"methods": ["POST"], "apply": apply,
            "fault": {"kind": "drop_before_response"}}]}),
        )
        .await;
        let raw = raw_exchange(
            served.address,
            &raw_request("POST", TABLE_URL, &served.anon, Some(&insert_body(name))),
        )
        .await;
        assert!(raw.bytes.is_empty(), "{}", raw.text());
    }
    assert_eq!(stored_names(&served).await, ["landed unanswered"]);
}

#[tokio::test]
async fn drop_mid_response_sends_the_head_and_half_the_body() {
    let served = served().await;
    seed(&served, &["ada", "bob", "cy"]).await;
    let full = raw_exchange(
        served.address,
        &raw_request("GET", TABLE_URL, &served.anon, None),
    )
    .await;
    let (_, full_body) = full.split().unwrap();

    install(
        &served,
        json!({"rules": [{"methods": ["GET"],
        "fault": {"kind": "drop_mid_response"}}]}),
    )
    .await;
    let raw = raw_exchange(
        served.address,
        &raw_request("GET", TABLE_URL, &served.anon, None),
    )
    .await;
    let (head, body) = raw.split().expect("the head arrives whole");
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert_eq!(raw.content_length(), Some(full_body.len()));
    assert_eq!(body, full_body[..full_body.len() / 2]);

    // An HTTP client sees an incomplete message.
    let mut client = served.client().await;
    let error = client
        .send(request(Method::GET, TABLE_URL, &served.anon, None))
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "error reading a body from connection");
}

#[tokio::test]
async fn a_mid_response_drop_of_an_empty_answer_cuts_the_head() {
    let served = served().await;
    install(
        &served,
        json!({"rules": [{"methods": ["POST"],
        "fault": {"kind": "drop_mid_response"}}]}),
    )
    .await;
    let raw = raw_exchange(
        served.address,
        &raw_request("POST", TABLE_URL, &served.anon, Some(&insert_body("half"))),
    )
    .await;
    let text = raw.text();
    assert!(
        !text.is_empty() && "HTTP/1.1 201 Created\r\n".starts_with(&text[..text.len().min(22)]),
        "{text}"
    );
    assert!(!text.contains("\r\n\r\n"), "{text}");
    // The write was processed before the answer broke.
    assert_eq!(stored_names(&served).await, ["half"]);
}

#[tokio::test]
async fn a_drop_closes_the_keep_alive_connection() {
    let served = served().await;
    install(
        &served,
        json!({"rules": [{"methods": ["GET"], "every": 2,
        "fault": {"kind": "drop_before_response"}}]}),
    )
    .await;
    let mut client = served.client().await;
    let read = || request(Method::GET, TABLE_URL, &served.anon, None);
    assert_eq!(client.send(read()).await.unwrap().status, StatusCode::OK);
    assert!(client.send(read()).await.is_err());
    assert!(client.send(read()).await.is_err(), "the connection is gone");
    let mut fresh = served.client().await;
    assert_eq!(fresh.send(read()).await.unwrap().status, StatusCode::OK);
}
