//! Broadcast between sockets: JSON and binary pushes, kind-4 frames to 2.0.0 sockets, `self`,
//! `ack`, and the HTTP endpoint.

use crate::support::{Received, Server, TOPIC};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{json, Value};

/// A client's binary broadcast push (kind 3).
fn push_frame(
    join_ref: &str,
    reference: &str,
    topic: &str,
    event: &str,
    encoding: u8,
    payload: &[u8],
) -> Vec<u8> {
    let mut frame = vec![
        3,
        join_ref.len() as u8,
        reference.len() as u8,
        topic.len() as u8,
        event.len() as u8,
        0,
        encoding,
    ];
    for part in [join_ref, reference, topic, event] {
        frame.extend_from_slice(part.as_bytes());
    }
    frame.extend_from_slice(payload);
    frame
}

/// Reads a server broadcast (kind 4): topic, event, encoding and payload.
fn read_kind_four(frame: &[u8]) -> (String, String, u8, Vec<u8>) {
    assert_eq!(frame[0], 4);
    let (topic_len, event_len, meta_len) =
        (frame[1] as usize, frame[2] as usize, frame[3] as usize);
    let encoding = frame[4];
    let topic = String::from_utf8(frame[5..5 + topic_len].to_vec()).unwrap();
    let event_start = 5 + topic_len;
    let event = String::from_utf8(frame[event_start..event_start + event_len].to_vec()).unwrap();
    let payload = frame[event_start + event_len + meta_len..].to_vec();
    (topic, event, encoding, payload)
}

#[tokio::test]
async fn a_binary_push_reaches_version_two_as_kind_four_and_version_one_as_json() {
    let server = Server::start().await;
    let mut sender = server.connect("2.0.0").await;
    let mut binary_listener = server.connect("2.0.0").await;
    let mut json_listener = server.connect("1.0.0").await;
    let config = json!({"broadcast": {"self": false, "ack": true}});
    let (join_ref, _) = sender.join(TOPIC, config, None).await;
    binary_listener.join(TOPIC, json!({}), None).await;
    json_listener.join(TOPIC, json!({}), None).await;

    sender
        .send_binary(push_frame(
            &join_ref,
            "41",
            TOPIC,
            "signed",
            1,
            br#"{"by":"ann"}"#,
        ))
        .await;
    // `ack`: the push is answered with its refs.
    let ack = sender.frame_next().await;
    assert_eq!(ack.event, "phx_reply");
    assert_eq!(ack.reference, Value::from("41"));
    assert_eq!(ack.join_ref, Value::from(join_ref.as_str()));
    assert_eq!(ack.payload["status"], "ok");

    match binary_listener.next().await {
        Received::Binary(frame) => {
            let (topic, event, encoding, payload) = read_kind_four(&frame);
            assert_eq!(
                (topic.as_str(), event.as_str(), encoding),
                (TOPIC, "signed", 1)
            );
            assert_eq!(
                serde_json::from_slice::<Value>(&payload).unwrap(),
                json!({"by": "ann"})
            );
        }
        other => panic!("expected a binary broadcast, got {other:?}"),
    }
    let message = json_listener.frame_next().await;
    assert_eq!(message.event, "broadcast");
    assert_eq!(message.reference, Value::Null);
    assert_eq!(
        message.payload,
        json!({"type": "broadcast", "event": "signed", "payload": {"by": "ann"}})
    );
    // `self: false`: the sender does not hear itself.
    sender.quiet().await;

    // Bytes travel as bytes to 2.0.0 sockets.
    sender
        .send_binary(push_frame(&join_ref, "42", TOPIC, "raw", 0, &[0, 1, 254]))
        .await;
    assert_eq!(sender.frame_next().await.payload["status"], "ok");
    match binary_listener.next().await {
        Received::Binary(frame) => {
            let (_, event, encoding, payload) = read_kind_four(&frame);
            assert_eq!(
                (event.as_str(), encoding, payload),
                ("raw", 0, vec![0, 1, 254])
            );
        }
        other => panic!("expected a binary broadcast, got {other:?}"),
    }
}

#[tokio::test]
async fn a_json_push_reaches_the_sender_only_with_self_and_is_unanswered_without_ack() {
    let server = Server::start().await;
    let mut sender = server.connect("1.0.0").await;
    let mut other_channel = server.connect("1.0.0").await;
    let (join_ref, _) = sender
        .join(TOPIC, json!({"broadcast": {"self": true}}), None)
        .await;
    other_channel
        .join("realtime:elsewhere", json!({}), None)
        .await;
    sender
        .push(
            Some(&join_ref),
            TOPIC,
            "broadcast",
            json!({"type": "broadcast", "event": "signed", "payload": {"n": 1}}),
        )
        .await;
    // No ack was asked for: the first frame back is the broadcast itself.
    let echo = sender.frame_next().await;
    assert_eq!(echo.event, "broadcast");
    assert_eq!(echo.payload["payload"], json!({"n": 1}));
    sender.quiet().await;
    // Another topic hears nothing.
    other_channel.quiet().await;
}

#[tokio::test]
async fn the_http_endpoint_broadcasts_to_a_channel_by_name() {
    let server = Server::start().await;
    let mut listener = server.connect("2.0.0").await;
    listener.join(TOPIC, json!({}), None).await;
    let request = Request::builder()
        .method("POST")
        .uri(format!("/realtime/v1/api/broadcast?apikey={}", server.publishable()))
        .header("content-type", "application/json")
        .body(Body::from(
            json!({"messages": [{"topic": "logbook", "event": "signed", "payload": {"n": 2}, "private": false}]})
                .to_string(),
        ))
        .unwrap();
    let (status, _) = server.request(request).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    match listener.next().await {
        Received::Binary(frame) => {
            let (topic, event, _, payload) = read_kind_four(&frame);
            assert_eq!((topic.as_str(), event.as_str()), (TOPIC, "signed"));
            assert_eq!(
                serde_json::from_slice::<Value>(&payload).unwrap(),
                json!({"n": 2})
            );
        }
        other => panic!("expected a binary broadcast, got {other:?}"),
    }
    let bad = Request::builder()
        .method("POST")
        .uri("/realtime/v1/api/broadcast")
        .header("apikey", server.publishable())
        .body(Body::from(r#"{"messages": [{"event": "x"}]}"#))
        .unwrap();
    let (status, body) = server.request(bad).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        body["message"],
        "each message needs a `topic` and an `event`"
    );
}

#[tokio::test]
async fn the_http_send_endpoint_takes_json_or_bytes() {
    let server = Server::start().await;
    let mut listener = server.connect("2.0.0").await;
    listener.join(TOPIC, json!({}), None).await;
    let send = |content_type: &str, body: Vec<u8>| {
        Request::builder()
            .method("POST")
            .uri("/realtime/v1/api/broadcast/logbook/events/signed")
            .header("apikey", server.publishable())
            .header("content-type", content_type)
            .body(Body::from(body))
            .unwrap()
    };
    let (status, _) = server
        .request(send("application/json", br#"{"n":3}"#.to_vec()))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (status, _) = server
        .request(send("application/octet-stream", vec![9, 8]))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    for (encoding, payload) in [(1, br#"{"n":3}"#.to_vec()), (0, vec![9, 8])] {
        match listener.next().await {
            Received::Binary(frame) => {
                let (topic, event, got_encoding, got) = read_kind_four(&frame);
                assert_eq!((topic.as_str(), event.as_str()), (TOPIC, "signed"));
                assert_eq!((got_encoding, got), (encoding, payload));
            }
            other => panic!("expected a binary broadcast, got {other:?}"),
        }
    }
    let (status, _) = server
        .request(send("application/json", b"{".to_vec()))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}
