//! Presence: `presence_state` on join, `presence_diff` on track, re-track, untrack and close.

use crate::support::{Client, Server, TOPIC};
use serde_json::{json, Value};

fn presence(key: &str) -> Value {
    json!({"presence": {"enabled": true, "key": key}})
}

async fn track(client: &mut Client, join_ref: &str, state: Value) -> String {
    client
        .push(
            Some(join_ref),
            TOPIC,
            "presence",
            json!({"type": "presence", "event": "track", "payload": state}),
        )
        .await
}

#[tokio::test]
async fn tracks_reach_every_presence_channel_and_a_closed_socket_leaves() {
    let server = Server::start().await;
    let mut ann = server.connect("2.0.0").await;
    let mut bea = server.connect("1.0.0").await;
    let mut quiet = server.connect("2.0.0").await;
    let (ann_ref, _) = ann.join(TOPIC, presence("ann"), None).await;
    assert_eq!(ann.frame_next().await.event, "presence_state");
    let (_, _) = bea.join(TOPIC, presence("bea"), None).await;
    let state = bea.frame_next().await;
    assert_eq!(
        (state.event.as_str(), state.payload.clone()),
        ("presence_state", json!({}))
    );
    // Presence not enabled: no presence events at all.
    quiet.join(TOPIC, json!({}), None).await;

    let reference = track(&mut ann, &ann_ref, json!({"at": "GC1"})).await;
    let reply = ann.frame_next().await;
    assert_eq!(
        (reply.reference, reply.payload["status"].clone()),
        (Value::from(reference), json!("ok"))
    );
    for client in [&mut ann, &mut bea] {
        let diff = client.frame_next().await;
        assert_eq!(diff.event, "presence_diff");
        assert_eq!(diff.payload["leaves"], json!({}));
        let metas = diff.payload["joins"]["ann"]["metas"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(metas.len(), 1);
        assert_eq!(metas[0]["at"], "GC1");
        assert!(metas[0]["phx_ref"].is_string());
    }

    // A late joiner gets the whole state.
    let mut cy = server.connect("2.0.0").await;
    cy.join(TOPIC, presence("cy"), None).await;
    let state = cy.frame_next().await;
    assert_eq!(state.event, "presence_state");
    assert_eq!(state.payload["ann"]["metas"][0]["at"], "GC1");

    drop(ann);
    for client in [&mut bea, &mut cy] {
        let diff = client.frame_next().await;
        assert_eq!(diff.event, "presence_diff");
        assert_eq!(diff.payload["joins"], json!({}));
        assert_eq!(diff.payload["leaves"]["ann"]["metas"][0]["at"], "GC1");
    }
    quiet.quiet().await;
}

#[tokio::test]
async fn untrack_and_leave_remove_what_a_channel_tracked() {
    let server = Server::start().await;
    let mut ann = server.connect("2.0.0").await;
    let mut bea = server.connect("2.0.0").await;
    let (ann_ref, _) = ann.join(TOPIC, presence("ann"), None).await;
    ann.frame_next().await;
    bea.join(TOPIC, presence("bea"), None).await;
    bea.frame_next().await;
    track(&mut ann, &ann_ref, json!({})).await;
    ann.frame_next().await;
    ann.frame_next().await;
    assert_eq!(
        bea.frame_next().await.payload["joins"]["ann"]["metas"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    ann.push(
        Some(&ann_ref),
        TOPIC,
        "presence",
        json!({"type": "presence", "event": "untrack"}),
    )
    .await;
    assert_eq!(ann.frame_next().await.payload["status"], "ok");
    assert!(bea.frame_next().await.payload["leaves"]["ann"].is_object());

    track(&mut ann, &ann_ref, json!({"again": true})).await;
    ann.frame_next().await;
    bea.frame_next().await;
    ann.push(Some(&ann_ref), TOPIC, "phx_leave", json!({}))
        .await;
    let diff = bea.frame_next().await;
    assert_eq!(diff.payload["leaves"]["ann"]["metas"][0]["again"], true);

    let bad = ann
        .push(
            Some("x"),
            TOPIC,
            "presence",
            json!({"type": "presence", "event": "track"}),
        )
        .await;
    // Left: the topic is no longer joined.
    loop {
        let frame = ann.frame_next().await;
        if frame.reference == bad.as_str() {
            assert_eq!(frame.payload["response"]["reason"], "unmatched topic");
            break;
        }
    }
}
