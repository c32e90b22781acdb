//! The socket itself: keys, serializers, joins, heartbeats, the timeout and the caps.

use crate::support::{Client, Received, Server, TOPIC};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use geocache_emulator::http::server::ConnectionLimits;
use geocache_emulator::realtime::RealtimeLimits;
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::test]
async fn a_socket_needs_a_valid_key_and_a_known_version() {
    let server = Server::start().await;
    let refused = |url: String| async move { tokio_tungstenite::connect_async(url).await.err() };
    let missing = format!("ws://{}/realtime/v1/websocket?vsn=2.0.0", server.address);
    let error = refused(missing).await.expect("refused");
    assert!(error.to_string().contains("401"), "{error}");
    let error = refused(server.url("sb_publishable_unknown", "2.0.0"))
        .await
        .expect("refused");
    assert!(error.to_string().contains("401"), "{error}");
    let error = refused(server.url(&server.publishable(), "9.9.9"))
        .await
        .expect("refused");
    assert!(error.to_string().contains("403"), "{error}");
    // Every kind of key opens a socket: new-format and legacy.
    let keys = &server.state.keys;
    for key in [
        keys.publishable_key(),
        keys.secret_key(),
        keys.anon_key(),
        keys.service_role_key(),
    ] {
        let mut client = server.connect_with(key, "2.0.0").await;
        let (_, reply) = client.join(TOPIC, json!({}), None).await;
        assert_eq!(reply.payload["status"], "ok");
    }
}

#[tokio::test]
async fn version_two_speaks_arrays_and_version_one_objects() {
    let server = Server::start().await;
    for vsn in ["2.0.0", "1.0.0"] {
        let mut client = server.connect(vsn).await;
        let changes = json!([{"event": "INSERT", "schema": "public", "table": "geocache_logs"}]);
        // `Client` asserts the frame shape of its serializer on every message it reads.
        let (join_ref, reply) = client
            .join(TOPIC, json!({"postgres_changes": changes}), None)
            .await;
        assert_eq!(reply.topic, TOPIC);
        assert_eq!(reply.payload["status"], "ok");
        let entries = reply.payload["response"]["postgres_changes"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(entries.len(), 1);
        assert!(entries[0]["id"].is_u64(), "{entries:?}");
        assert_eq!(entries[0]["event"], "INSERT");
        assert_eq!(entries[0]["schema"], "public");
        assert_eq!(entries[0]["table"], "geocache_logs");
        let system = client.frame_next().await;
        assert_eq!(system.event, "system");
        assert_eq!(system.join_ref, Value::from(join_ref.as_str()));
        assert_eq!(
            system.payload,
            json!({"extension": "postgres_changes", "status": "ok", "message": "Subscribed to PostgreSQL", "channel": "logbook"})
        );

        let reference = client.push(None, "phoenix", "heartbeat", json!({})).await;
        let reply = client.frame_next().await;
        assert_eq!(reply.topic, "phoenix");
        assert_eq!(reply.event, "phx_reply");
        assert_eq!(reply.reference, Value::from(reference));
        assert_eq!(reply.payload, json!({"status": "ok", "response": {}}));
    }
}

#[tokio::test]
async fn the_same_entries_get_the_same_ids_on_every_join() {
    let server = Server::start().await;
    let changes = json!([
        {"event": "*", "schema": "public", "table": "geocache_logs", "filter": "id=gt.3"},
        {"event": "DELETE", "schema": "public", "table": "geocache_logs"},
    ]);
    let mut first = server.connect("2.0.0").await;
    let (_, ids) = first.subscribe(TOPIC, changes.clone(), None).await;
    let mut second = server.connect("1.0.0").await;
    let (_, again) = second.subscribe("realtime:other", changes, None).await;
    assert_eq!(ids, again);
    assert_ne!(ids[0], ids[1]);
}

#[tokio::test]
async fn a_bad_entry_is_echoed_and_reported_as_a_system_error() {
    let server = Server::start().await;
    let mut client = server.connect("2.0.0").await;
    let changes = json!([
        {"event": "INSERT", "schema": "public", "table": "secrets"},
        {"event": "INSERT", "schema": "public", "table": "geocache_logs", "filter": "id=like.1"},
    ]);
    let (_, reply) = client
        .join(TOPIC, json!({"postgres_changes": changes}), None)
        .await;
    assert_eq!(reply.payload["status"], "ok");
    assert_eq!(
        reply.payload["response"]["postgres_changes"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let first = client.frame_next().await;
    assert_eq!(first.payload["status"], "error");
    assert!(first.payload["message"]
        .as_str()
        .unwrap()
        .starts_with("Unable to subscribe to changes with given parameters"));
    let second = client.frame_next().await;
    assert_eq!(
        second.payload["message"],
        "Error parsing `filter` params: id=like.1"
    );
    client.quiet().await;
}

#[tokio::test]
async fn leaving_replies_and_closes_the_channel() {
    let server = Server::start().await;
    let mut client = server.connect("2.0.0").await;
    let (join_ref, _) = client.join(TOPIC, json!({}), None).await;
    let reference = client
        .push(Some(&join_ref), TOPIC, "phx_leave", json!({}))
        .await;
    let reply = client.frame_next().await;
    assert_eq!(
        (reply.event.as_str(), reply.reference),
        ("phx_reply", Value::from(reference))
    );
    assert_eq!(reply.payload["status"], "ok");
    let close = client.frame_next().await;
    assert_eq!(close.event, "phx_close");
    assert_eq!(close.join_ref, Value::from(join_ref.as_str()));
    // Left: a push to it is now an unmatched topic.
    client
        .push(
            Some(&join_ref),
            TOPIC,
            "broadcast",
            json!({"type": "broadcast", "event": "e", "payload": {}}),
        )
        .await;
    let refused = client.frame_next().await;
    assert_eq!(
        refused.payload,
        json!({"status": "error", "response": {"reason": "unmatched topic"}})
    );
}

#[tokio::test]
async fn topics_outside_realtime_are_refused() {
    let server = Server::start().await;
    let mut client = server.connect("2.0.0").await;
    let (_, reply) = client.join("room:lobby", json!({}), None).await;
    assert_eq!(
        reply.payload,
        json!({"status": "error", "response": {"reason": "unmatched topic"}})
    );
}

#[tokio::test]
async fn a_silent_socket_is_closed_and_heartbeats_keep_one_open() {
    // Heartbeats a quarter of the timeout apart: a busy machine may hold a beat back by a fraction of a second, and
    // the beating socket must not be closed for it; the run still lasts past the timeout.
    let server = Server::with_limits(RealtimeLimits {
        timeout: Duration::from_millis(1000),
        ..RealtimeLimits::default()
    })
    .await;
    let mut beating = server.connect("2.0.0").await;
    let mut silent = server.connect("2.0.0").await;
    for _ in 0..6 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        beating.push(None, "phoenix", "heartbeat", json!({})).await;
        assert_eq!(beating.frame_next().await.payload["status"], "ok");
    }
    // A second and a half after connecting, past the timeout.
    match silent.next().await {
        Received::Closed(code) => assert_eq!(code, Some(1000)),
        other => panic!("expected the silent socket closed, got {other:?}"),
    }
    assert_eq!(server.state.realtime.open_sockets(), 1);
}

#[tokio::test]
async fn channels_per_socket_are_capped() {
    let server = Server::with_limits(RealtimeLimits {
        max_channels: 2,
        ..RealtimeLimits::default()
    })
    .await;
    let mut client = server.connect("2.0.0").await;
    for name in ["realtime:a", "realtime:b"] {
        let (_, reply) = client.join(name, json!({}), None).await;
        assert_eq!(reply.payload["status"], "ok");
    }
    let (_, reply) = client.join("realtime:c", json!({}), None).await;
    assert_eq!(
        reply.payload,
        json!({"status": "error", "response": {"reason": "ChannelRateLimitReached: Too many channels"}})
    );
    // Joining a joined topic again is a rejoin, not one more channel: the old join is closed.
    client
        .push(Some("j9"), "realtime:a", "phx_join", json!({"config": {}}))
        .await;
    let close = client.frame_next().await;
    assert_eq!(
        (close.event.as_str(), close.topic.as_str()),
        ("phx_close", "realtime:a")
    );
    assert_ne!(close.join_ref, Value::from("j9"));
    let reply = client.frame_next().await;
    assert_eq!(reply.join_ref, Value::from("j9"));
    assert_eq!(reply.payload["status"], "ok");
}

#[tokio::test]
async fn sockets_are_counted_from_the_upgrade_and_refused_past_the_cap() {
    let server = Server::with_limits(RealtimeLimits {
        max_connections: 2,
        ..RealtimeLimits::default()
    })
    .await;
    // Sockets that never join hold their places too.
    let first = server.connect("2.0.0").await;
    let mut second = server.connect("2.0.0").await;
    let error = tokio_tungstenite::connect_async(server.url(&server.publishable(), "2.0.0"))
        .await
        .expect_err("over the cap");
    match error {
        tokio_tungstenite::tungstenite::Error::Http(response) => {
            assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
            let body = String::from_utf8_lossy(response.body().as_deref().unwrap_or_default());
            assert!(body.contains("ConnectionRateLimitReached"), "{body}");
        }
        other => panic!("expected an HTTP refusal, got {other}"),
    }
    assert_eq!(server.state.realtime.open_sockets(), 2);
    let (_, reply) = second.join(TOPIC, json!({}), None).await;
    assert_eq!(reply.payload["status"], "ok");
    drop(first);
    // Once the first has gone, its place is free again.
    for _ in 0..500 {
        if server.state.realtime.open_sockets() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut third = server.connect("2.0.0").await;
    let (_, reply) = third.join(TOPIC, json!({}), None).await;
    assert_eq!(reply.payload["status"], "ok");
}

#[tokio::test]
async fn the_drop_route_needs_the_service_role_and_drops_every_socket() {
    let server = Server::start().await;
    let mut client: Client = server.connect("2.0.0").await;
    client.join(TOPIC, json!({}), None).await;
    let drop_with = |key: String| {
        Request::builder()
            .method("DELETE")
            .uri("/emulator/v1/realtime/sockets")
            .header("apikey", key)
            .body(Body::empty())
            .unwrap()
    };
    let (status, _) = server.request(drop_with(server.publishable())).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = server.request(drop_with(server.secret())).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"dropped": 1})));
    // Dropped without a close frame, as a restart drops it.
    match client.next().await {
        Received::Closed(None) => {}
        other => panic!("expected the socket dropped, got {other:?}"),
    }
}

#[tokio::test]
async fn the_sockets_route_shows_each_channel_with_the_role_and_user_of_its_token() {
    let server = Server::start().await;
    let keys = &server.state.keys;
    let now = server.state.clock.now_seconds();
    let list = |key: String| {
        Request::builder()
            .uri("/emulator/v1/realtime/sockets")
            .header("apikey", key)
            .body(Body::empty())
            .unwrap()
    };
    let mut client = server.connect("2.0.0").await;
    let (status, body) = server.request(list(server.secret())).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        json!([{"id": body[0]["id"], "vsn": "2.0.0", "channels": []}])
    );

    let user = keys.sign(&json!({"role": "authenticated", "sub": "user-1", "exp": now + 600}));
    let (join_ref, _) = client.join(TOPIC, json!({}), Some(&user)).await;
    client.join("realtime:anonymous", json!({}), None).await;
    let (_, body) = server.request(list(server.secret())).await;
    assert_eq!(
        body[0]["channels"],
        json!([
            {"topic": "realtime:anonymous", "role": "anon", "sub": null},
            {"topic": TOPIC, "role": "authenticated", "sub": "user-1"},
        ])
    );
    // A refreshed token for another user is what the channel acts for from then on.
    let refreshed = keys.sign(&json!({"role": "authenticated", "sub": "user-2", "exp": now + 900}));
    client
        .push(
            Some(&join_ref),
            TOPIC,
            "access_token",
            json!({"access_token": refreshed}),
        )
        .await;
    assert_eq!(client.frame_next().await.payload["status"], "ok");
    let (_, body) = server.request(list(server.secret())).await;
    assert_eq!(body[0]["channels"][1]["sub"], "user-2");

    drop(client);
    for _ in 0..50 {
        let (_, body) = server.request(list(server.secret())).await;
        if body == json!([]) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("a closed socket is still listed");
}

#[tokio::test]
async fn a_socket_outlives_the_http_header_and_idle_deadlines() {
    // Once upgraded, a connection is the socket's: only Realtime's own timeout applies.
    let server = Server::with_all_limits(
        RealtimeLimits::default(),
        ConnectionLimits {
            header_read_timeout: Duration::from_millis(300),
            idle_timeout: Duration::from_millis(300),
            ..ConnectionLimits::default()
        },
    )
    .await;
    let mut client = server.connect("2.0.0").await;
    client.join(TOPIC, json!({}), None).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    client.push(None, "phoenix", "heartbeat", json!({})).await;
    assert_eq!(client.frame_next().await.payload["status"], "ok");
}
