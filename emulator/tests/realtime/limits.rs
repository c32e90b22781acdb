//! What one socket may send: messages of bounded size, broadcasts within their payload limit and
//! the socket's budget, presence within its limits. Each refusal names its limit, and a refused
//! message reaches nobody.

use crate::support::{Client, Received, Server, TOPIC};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use geocache_emulator::realtime::presence::PresenceLimits;
use geocache_emulator::realtime::size::{MAX_MESSAGE_BYTES, MAX_PAYLOAD_BYTES};
use geocache_emulator::realtime::RealtimeLimits;
use serde_json::{json, Value};

fn broadcast(event: &str, payload: Value) -> Value {
    json!({"type": "broadcast", "event": event, "payload": payload})
}

/// A payload of about `bytes` bytes of JSON.
fn sized(bytes: usize) -> Value {
    json!({"text": "x".repeat(bytes)})
}

/// The next frame that is not a `system` message, and the `system` messages before it.
async fn reply_and_system(client: &mut Client) -> (crate::support::Frame, Vec<Value>) {
    let mut system = Vec::new();
    loop {
        let frame = client.frame_next().await;
        if frame.event == "system" {
            system.push(frame.payload);
        } else {
            return (frame, system);
        }
    }
}

#[tokio::test]
async fn a_message_over_the_limit_closes_the_socket_with_1009_unread() {
    let server = Server::start().await;
    let mut sender = server.connect("2.0.0").await;
    let mut listener = server.connect("2.0.0").await;
    let (join_ref, _) = sender.join(TOPIC, json!({}), None).await;
    listener.join(TOPIC, json!({}), None).await;
    sender
        .push(
            Some(&join_ref),
            TOPIC,
            "broadcast",
            broadcast("big", sized(MAX_MESSAGE_BYTES)),
        )
        .await;
    match sender.next().await {
        Received::Closed(code) => assert_eq!(code, Some(1009)),
        other => panic!("expected the socket closed, got {other:?}"),
    }
    listener.quiet().await;
}

#[tokio::test]
async fn a_broadcast_over_the_payload_limit_is_refused_with_a_reason_and_reaches_nobody() {
    let server = Server::start().await;
    let mut sender = server.connect("2.0.0").await;
    let mut listener = server.connect("2.0.0").await;
    let config = json!({"broadcast": {"ack": true, "self": true}});
    let (join_ref, _) = sender.join(TOPIC, config, None).await;
    listener.join(TOPIC, json!({}), None).await;
    // Under the message limit, over the payload limit.
    let reference = sender
        .push(
            Some(&join_ref),
            TOPIC,
            "broadcast",
            broadcast("big", sized(MAX_PAYLOAD_BYTES)),
        )
        .await;
    let (reply, system) = reply_and_system(&mut sender).await;
    assert_eq!(reply.event, "phx_reply");
    assert_eq!(reply.reference, Value::from(reference));
    assert_eq!(reply.payload["status"], "error");
    let reason = reply.payload["response"]["reason"].as_str().unwrap();
    assert!(reason.starts_with("PayloadSizeExceeded: "), "{reason}");
    // The system message says so too, for clients that asked for no reply.
    let system = match system.as_slice() {
        [] => sender.frame_next().await.payload,
        [one] => one.clone(),
        more => panic!("{more:?}"),
    };
    assert_eq!(
        (system["extension"].as_str(), system["status"].as_str()),
        (Some("broadcast"), Some("error"))
    );
    assert_eq!(system["message"], reason);
    listener.quiet().await;
    // The socket stays usable.
    sender
        .push(
            Some(&join_ref),
            TOPIC,
            "broadcast",
            broadcast("small", json!({})),
        )
        .await;
    assert!(matches!(listener.next().await, Received::Binary(_)));
}

#[tokio::test]
async fn a_socket_past_its_broadcast_budget_is_refused_until_it_refills() {
    // A budget no test can refill in time: 64 KiB at once, 1 byte a second.
    let server = Server::with_limits(RealtimeLimits {
        broadcast_burst_bytes: 64 * 1024,
        broadcast_bytes_per_second: 1,
        ..RealtimeLimits::default()
    })
    .await;
    let mut sender = server.connect("2.0.0").await;
    let config = json!({"broadcast": {"ack": true}});
    let (join_ref, _) = sender.join(TOPIC, config, None).await;
    let mut statuses = Vec::new();
    for _ in 0..10 {
        sender
            .push(
                Some(&join_ref),
                TOPIC,
                "broadcast",
                broadcast("chunk", sized(10 * 1024)),
            )
            .await;
        let (reply, _) = reply_and_system(&mut sender).await;
        statuses.push(reply.payload.clone());
    }
    // Six of about 10 KiB fit in 64 KiB; the rest are refused.
    assert!(
        statuses[..6].iter().all(|reply| reply["status"] == "ok"),
        "{statuses:?}"
    );
    for reply in &statuses[7..] {
        let reason = reply["response"]["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("BroadcastRateLimitReached: "),
            "{reason}"
        );
    }
}

/// Tracks `bytes` of state on `topic` and returns the reply; a kept track's own diff is read too.
async fn track_presence(client: &mut Client, topic: &str, join_ref: String, bytes: usize) -> Value {
    let payload = json!({"type": "presence", "event": "track", "payload": sized(bytes)});
    client
        .push(Some(&join_ref), topic, "presence", payload)
        .await;
    let reply = loop {
        let frame = client.frame_next().await;
        if frame.event == "phx_reply" {
            break frame.payload;
        }
    };
    if reply["status"] == "ok" {
        while client.frame_next().await.event != "presence_diff" {}
    }
    reply
}

#[tokio::test]
async fn presence_past_its_limits_is_refused_and_changes_nothing() {
    let server = Server::with_limits(RealtimeLimits {
        presence: PresenceLimits {
            per_track: 1000,
            per_channel: 2500,
            per_socket: 1500,
        },
        ..RealtimeLimits::default()
    })
    .await;
    let presence = |key: &str| json!({"presence": {"enabled": true, "key": key}});
    let reason = |reply: &Value| reply["response"]["reason"].as_str().unwrap().to_owned();
    let mut ann = server.connect("2.0.0").await;
    let (ann_ref, _) = ann.join(TOPIC, presence("a"), None).await;
    let refused = track_presence(&mut ann, TOPIC, ann_ref.clone(), 1000).await;
    assert_eq!(refused["status"], "error");
    assert!(reason(&refused).starts_with("PayloadSizeExceeded: "));
    assert_eq!(
        track_presence(&mut ann, TOPIC, ann_ref.clone(), 900).await["status"],
        "ok"
    );
    // One socket may hold 1500 bytes over all its channels.
    let (other_ref, _) = ann.join("realtime:other", presence("a"), None).await;
    let refused = track_presence(&mut ann, "realtime:other", other_ref, 900).await;
    assert!(
        reason(&refused).starts_with("PresenceStateTooLarge: "),
        "{refused}"
    );
    // One channel may hold 2500 bytes over all its sockets.
    let mut bea = server.connect("2.0.0").await;
    let (bea_ref, _) = bea.join(TOPIC, presence("b"), None).await;
    assert_eq!(
        track_presence(&mut bea, TOPIC, bea_ref, 900).await["status"],
        "ok"
    );
    let mut cy = server.connect("2.0.0").await;
    let (cy_ref, _) = cy.join(TOPIC, presence("c"), None).await;
    let refused = track_presence(&mut cy, TOPIC, cy_ref, 900).await;
    assert!(
        reason(&refused).starts_with("PresenceStateTooLarge: "),
        "{refused}"
    );
    // A newcomer sees the two tracks that were kept, and none that was refused.
    let mut dee = server.connect("2.0.0").await;
    dee.join(TOPIC, presence("d"), None).await;
    let state = dee.frame_next().await;
    assert_eq!(state.event, "presence_state");
    let mut keys: Vec<&String> = state.payload.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["a", "b"]);
}

#[tokio::test]
async fn an_http_broadcast_over_the_payload_limit_is_refused() {
    let server = Server::start().await;
    let mut listener = server.connect("2.0.0").await;
    listener.join(TOPIC, json!({}), None).await;
    let post = |uri: String, body: String| {
        Request::builder()
            .method("POST")
            .uri(uri)
            .header("apikey", server.publishable())
            .header("content-type", "application/json")
            .body(Body::from(body))
            .unwrap()
    };
    let messages = json!({"messages": [
        {"topic": "logbook", "event": "small", "payload": {}},
        {"topic": "logbook", "event": "big", "payload": sized(MAX_PAYLOAD_BYTES)},
    ]});
    let (status, body) = server
        .request(post(
            "/realtime/v1/api/broadcast".into(),
            messages.to_string(),
        ))
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert!(body["message"]
        .as_str()
        .unwrap()
        .starts_with("PayloadSizeExceeded: "));
    let (status, _) = server
        .request(post(
            "/realtime/v1/api/broadcast/logbook/events/big".into(),
            sized(MAX_PAYLOAD_BYTES).to_string(),
        ))
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    // Nothing of a refused request was sent, not even its small message.
    listener.quiet().await;
}
