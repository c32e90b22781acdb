//! postgres_changes: what each REST write sends, to whom, and in which order.

use crate::support::{Received, Server, TOPIC};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use geocache_emulator::clock::ManualClock;
use geocache_emulator::keys::Role;
use geocache_emulator::read_access::ReadAccess;
use geocache_emulator::realtime::RealtimeLimits;
use serde_json::{json, Value};
use std::collections::HashSet;

fn table_entry(event: &str, filter: Option<&str>) -> Value {
    let mut entry = json!({"event": event, "schema": "public", "table": "geocache_logs"});
    if let Some(filter) = filter {
        entry["filter"] = filter.into();
    }
    entry
}

fn entry(name: &str) -> Value {
    json!({"name": name, "message": format!("{name} was here")})
}

#[tokio::test]
async fn an_insert_arrives_once_with_the_row_and_the_matching_ids() {
    let server = Server::start().await;
    let mut client = server.connect("2.0.0").await;
    let (join_ref, ids) = client
        .subscribe(
            TOPIC,
            json!([
                table_entry("INSERT", None),
                table_entry("UPDATE", None),
                table_entry("*", None)
            ]),
            None,
        )
        .await;
    let row = server.insert(entry("ann")).await.remove(0);
    let frame = client.frame_next().await;
    assert_eq!(frame.event, "postgres_changes");
    assert_eq!(frame.topic, TOPIC);
    assert_eq!(frame.join_ref, Value::from(join_ref.as_str()));
    let payload = frame.payload;
    // INSERT and `*`, not UPDATE; the ids as the join reply typed them.
    assert_eq!(payload["ids"], json!([ids[0], ids[2]]));
    let data = &payload["data"];
    assert_eq!(data["type"], "INSERT");
    assert_eq!(data["schema"], "public");
    assert_eq!(data["table"], "geocache_logs");
    assert_eq!(data["record"], row);
    assert_eq!(data.get("old_record"), None);
    assert_eq!(data["errors"], Value::Null);
    assert_eq!(data["columns"][0], json!({"name": "id", "type": "int8"}));
    assert!(data["commit_timestamp"].as_str().unwrap().ends_with('Z'));
    client.quiet().await;
}

#[tokio::test]
async fn filters_select_rows_as_realtime_reads_them() {
    let server = Server::start().await;
    let mut client = server.connect("2.0.0").await;
    let filters = ["id=gt.2", "name=in.(bea,cy)", "id=lte.1", "name=neq.ann"];
    let entries: Vec<Value> = filters
        .iter()
        .map(|filter| table_entry("INSERT", Some(filter)))
        .collect();
    let (_, ids) = client.subscribe(TOPIC, Value::Array(entries), None).await;
    for name in ["ann", "bea", "cy", "dee"] {
        server.insert(entry(name)).await;
    }
    // ann (id 1): lte.1. bea (2): in, neq. cy (3): gt.2, in, neq. dee (4): gt.2, neq.
    let expected = [
        vec![&ids[2]],
        vec![&ids[1], &ids[3]],
        vec![&ids[0], &ids[1], &ids[3]],
        vec![&ids[0], &ids[3]],
    ];
    for (id, matching) in expected.iter().enumerate() {
        let payload = client.change().await;
        assert_eq!(payload["data"]["record"]["id"], id + 1);
        assert_eq!(payload["ids"], json!(matching), "row {}", id + 1);
    }
    client.quiet().await;
}

#[tokio::test]
async fn updates_carry_the_old_key_and_deletes_reach_every_delete_entry_with_only_the_key() {
    let server = Server::start().await;
    let rows = server.insert(json!([entry("ann"), entry("bea")])).await;
    let mut anon = server.connect("2.0.0").await;
    let (_, ids) = anon
        .subscribe(
            TOPIC,
            json!([
                table_entry("UPDATE", Some("name=eq.bea")),
                table_entry("DELETE", Some("name=eq.nobody"))
            ]),
            None,
        )
        .await;
    server
        .rest("PATCH", "id=eq.1", json!({"message": "edited"}))
        .await;
    server
        .rest("PATCH", "id=eq.2", json!({"message": "edited"}))
        .await;
    server.rest("DELETE", "id=eq.1", json!({})).await;

    let update = anon.change().await;
    assert_eq!(update["ids"], json!([ids[0]]));
    assert_eq!(update["data"]["type"], "UPDATE");
    assert_eq!(update["data"]["record"]["id"], rows[1]["id"]);
    assert_eq!(update["data"]["record"]["message"], "edited");
    assert_eq!(update["data"]["old_record"], json!({"id": 2}));
    // A DELETE carries only the key, so a filter on another column cannot hold it back.
    let delete = anon.change().await;
    assert_eq!(delete["ids"], json!([ids[1]]));
    assert_eq!(delete["data"]["type"], "DELETE");
    assert_eq!(delete["data"]["old_record"], json!({"id": 1}));
    assert_eq!(delete["data"].get("record"), None);
    anon.quiet().await;
}

#[tokio::test]
async fn every_role_that_may_read_the_table_gets_inserts() {
    let server = Server::start().await;
    let keys = &server.state.keys;
    let now = server.state.clock.now_seconds();
    let user = keys.sign(&json!({"role": "authenticated", "sub": "u1", "exp": now + 600}));
    let mut subscribers = Vec::new();
    // publishable (anon), a signed-in user, the secret key (service_role), the legacy anon key.
    for (key, token) in [
        (keys.publishable_key().to_owned(), None),
        (keys.publishable_key().to_owned(), Some(user.clone())),
        (keys.secret_key().to_owned(), None),
        (keys.anon_key().to_owned(), Some(keys.anon_key().to_owned())),
        (
            keys.publishable_key().to_owned(),
            Some(keys.publishable_key().to_owned()),
        ),
    ] {
        let mut client = server.connect_with(&key, "1.0.0").await;
        client
            .subscribe(
                TOPIC,
                json!([table_entry("INSERT", None)]),
                token.as_deref(),
            )
            .await;
        subscribers.push(client);
    }
    let row = server.insert(entry("ann")).await.remove(0);
    for client in &mut subscribers {
        assert_eq!(client.change().await["data"]["record"], row);
    }
}

#[tokio::test]
async fn roles_whose_reads_see_no_row_get_deletes_but_no_inserts_or_updates() {
    // anon loses the SELECT privilege, authenticated the SELECT policy.
    let access = ReadAccess::default()
        .revoke_select(Role::Anon)
        .without_select_policy_for(Role::Authenticated);
    let server = Server::with_read_access(access).await;
    let keys = &server.state.keys;
    let now = server.state.clock.now_seconds();
    let user = keys.sign(&json!({"role": "authenticated", "sub": "u1", "exp": now + 600}));
    let publishable = keys.publishable_key().to_owned();
    let secret = keys.secret_key().to_owned();
    let subscriber = |key: String, token: Option<String>| {
        let server = &server;
        async move {
            let mut client = server.connect_with(&key, "2.0.0").await;
            client
                .subscribe(TOPIC, json!([table_entry("*", None)]), token.as_deref())
                .await;
            client
        }
    };
    let mut anon = subscriber(publishable.clone(), None).await;
    let mut authenticated = subscriber(publishable.clone(), Some(user.clone())).await;
    let mut service = subscriber(secret.clone(), None).await;

    let row = server.insert(entry("ann")).await.remove(0);
    server
        .rest("PATCH", "id=eq.1", json!({"message": "edited"}))
        .await;
    server.rest("DELETE", "id=eq.1", json!({})).await;

    let types = |payloads: &[Value]| -> Vec<String> {
        payloads
            .iter()
            .map(|payload| payload["data"]["type"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(service.change().await);
    }
    assert_eq!(types(&seen), ["INSERT", "UPDATE", "DELETE"]);
    assert_eq!(seen[0]["data"]["record"], row);
    for client in [&mut anon, &mut authenticated] {
        let delete = client.change().await;
        assert_eq!(delete["data"]["type"], "DELETE");
        assert_eq!(delete["data"]["old_record"], json!({"id": 1}));
        client.quiet().await;
    }

    // The same rule answers their REST reads: refused, no rows, every row.
    server.insert(entry("bea")).await;
    let read = |key: &str, token: &str| {
        Request::builder()
            .uri("/rest/v1/geocache_logs?select=name")
            .header("apikey", key)
            .header("authorization", format!("Bearer {token}"))
            .body(Body::empty())
            .unwrap()
    };
    let (status, body) = server.request(read(&publishable, &publishable)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["code"], "42501");
    let (status, body) = server.request(read(&publishable, &user)).await;
    assert_eq!((status, body), (StatusCode::OK, json!([])));
    let (status, body) = server.request(read(&secret, &secret)).await;
    assert_eq!((status, body), (StatusCode::OK, json!([{"name": "bea"}])));
}

#[tokio::test]
async fn bad_access_tokens_are_refused_on_join_and_close_a_joined_channel() {
    let server = Server::start().await;
    let keys = &server.state.keys;
    let now = server.state.clock.now_seconds();
    let mut client = server.connect("2.0.0").await;
    let expired = keys.sign(&json!({"role": "authenticated", "exp": now - 3600}));
    let (_, reply) = client
        .join(
            TOPIC,
            json!({"postgres_changes": [table_entry("*", None)]}),
            Some(&expired),
        )
        .await;
    assert_eq!(
        reply.payload,
        json!({"status": "error", "response": {"reason": "InvalidJWTToken: Token has expired"}})
    );
    let forged = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIiwiZXhwIjo5OTk5OTk5OTk5fQ.AAAA";
    let (_, reply) = client.join(TOPIC, json!({}), Some(forged)).await;
    assert_eq!(reply.payload["status"], "error");

    // A refreshed token is accepted; a bad one closes the channel.
    let user = keys.sign(&json!({"role": "authenticated", "exp": now + 600}));
    let (join_ref, _) = client
        .subscribe(TOPIC, json!([table_entry("INSERT", None)]), Some(&user))
        .await;
    let fresh = keys.sign(&json!({"role": "authenticated", "exp": now + 1200}));
    let reference = client
        .push(
            Some(&join_ref),
            TOPIC,
            "access_token",
            json!({"access_token": fresh}),
        )
        .await;
    let reply = client.frame_next().await;
    assert_eq!(
        (reply.reference, reply.payload["status"].clone()),
        (Value::from(reference), json!("ok"))
    );
    client
        .push(
            Some(&join_ref),
            TOPIC,
            "access_token",
            json!({"access_token": expired}),
        )
        .await;
    assert_eq!(client.frame_next().await.payload["status"], "error");
    assert_eq!(client.frame_next().await.event, "phx_close");
    server.insert(entry("ann")).await;
    client.quiet().await;
}

#[tokio::test]
async fn concurrent_inserts_arrive_in_commit_order_without_loss_or_duplicates() {
    let server = Server::start().await;
    let mut client = server.connect("2.0.0").await;
    client
        .subscribe(TOPIC, json!([table_entry("INSERT", None)]), None)
        .await;
    let writers: Vec<_> = (0..8)
        .map(|writer| {
            let state = server.state.clone();
            tokio::spawn(async move {
                let server = crate::support::Server::over(state);
                for index in 0..25 {
                    server.insert(entry(&format!("w{writer}-{index}"))).await;
                }
            })
        })
        .collect();
    for writer in writers {
        writer.await.unwrap();
    }
    let mut seen = HashSet::new();
    let mut last = 0;
    for _ in 0..200 {
        let id = client.change().await["data"]["record"]["id"]
            .as_i64()
            .unwrap();
        // Ids are assigned under the same lock the change is published under: commit order.
        assert!(id > last, "{id} after {last}");
        assert!(seen.insert(id));
        last = id;
    }
    assert_eq!(last, 200);
    client.quiet().await;
}

#[tokio::test]
async fn a_subscriber_too_slow_for_its_queue_is_disconnected_not_skipped() {
    let server = Server::with_limits(RealtimeLimits {
        queue: 8,
        ..RealtimeLimits::default()
    })
    .await;
    let mut client = server.connect("2.0.0").await;
    client
        .subscribe(TOPIC, json!([table_entry("INSERT", None)]), None)
        .await;
    // One statement, thousands of rows: published in a burst far faster than a socket drains.
    let rows: Vec<Value> = (0..3000).map(|index| entry(&format!("v{index}"))).collect();
    server.insert(Value::Array(rows)).await;
    let mut expected = 1;
    loop {
        match client.next().await {
            Received::Text(frame) => {
                // Whatever arrived before the cut has no gap.
                assert_eq!(frame.payload["data"]["record"]["id"], expected);
                expected += 1;
            }
            Received::Closed(code) => {
                assert_eq!(code, Some(1011));
                break;
            }
            Received::Binary(_) => panic!("no broadcast was sent"),
        }
    }
    assert!(
        expected <= 3000,
        "every event arrived: the queue never overflowed"
    );
}

#[tokio::test]
async fn a_subscriber_that_stops_reading_is_dropped_after_the_timeout() {
    let server = Server::with_limits(RealtimeLimits {
        timeout: std::time::Duration::from_millis(500),
        ..RealtimeLimits::default()
    })
    .await;
    let mut client = server.connect("2.0.0").await;
    client
        .subscribe(TOPIC, json!([table_entry("INSERT", None)]), None)
        .await;
    // About 16 MB of changes, more than the socket buffers hold, and the client reads none.
    let long = "x".repeat(100_000);
    for _ in 0..8 {
        let rows: Vec<Value> = (0..20)
            .map(|_| json!({"name": "bulk", "message": long}))
            .collect();
        server.insert(Value::Array(rows)).await;
    }
    for _ in 0..200 {
        if server.state.realtime.open_sockets() == 0 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("a socket whose client reads nothing is still open");
}

#[tokio::test]
async fn a_channel_closes_when_its_token_expires_unless_a_fresh_one_arrived() {
    // The first token expires when the test moves the clock, once the fresh one has arrived: on the system clock a
    // busy machine could take the two seconds to send it, and the refreshed channel would close as well.
    let clock = ManualClock::starting_now();
    let server = Server::with_clock(clock.clock()).await;
    let keys = &server.state.keys;
    let now = server.state.clock.now_seconds();
    let short = keys.sign(&json!({"role": "authenticated", "exp": now + 2}));
    let mut expiring = server.connect("2.0.0").await;
    let (join_ref, _) = expiring.join(TOPIC, json!({}), Some(&short)).await;
    let mut refreshed = server.connect("2.0.0").await;
    let (refreshed_ref, _) = refreshed
        .subscribe(TOPIC, json!([table_entry("INSERT", None)]), Some(&short))
        .await;
    let fresh = keys.sign(&json!({"role": "authenticated", "exp": now + 600}));
    refreshed
        .push(
            Some(&refreshed_ref),
            TOPIC,
            "access_token",
            json!({"access_token": fresh}),
        )
        .await;
    assert_eq!(refreshed.frame_next().await.payload["status"], "ok");
    clock.advance_seconds(2);

    let system = expiring.frame_next().await;
    assert_eq!(system.event, "system");
    assert_eq!(system.join_ref, Value::from(join_ref.as_str()));
    assert_eq!(
        system.payload,
        json!({"extension": "system", "status": "error", "message": "Token has expired", "channel": "logbook"})
    );
    assert_eq!(expiring.frame_next().await.event, "phx_close");
    // The refreshed channel is still joined, past the first token's expiry: it gets the next insert.
    let row = server.insert(entry("ann")).await.remove(0);
    assert_eq!(refreshed.change().await["data"]["record"], row);
}

#[tokio::test]
async fn an_owners_removal_reaches_every_delete_listener_and_a_restore_arrives_as_an_insert() {
    let server = Server::start().await;
    let owner_id = "6ba7b810-9dad-41d1-80b4-00c04fd430c8";
    server
        .state
        .db
        .call(
            move |connection| -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
                connection.execute(
                    "INSERT INTO auth_users (id, email, encrypted_password, email_confirmed_at, \
                 raw_app_meta_data, raw_user_meta_data, identity_id, identity_data, created_at, \
                 updated_at) VALUES (?, 'owner@example.com', '', 0, '{}', '{}', ?, '{}', 0, 0)",
                    [owner_id, owner_id],
                )?;
                geocache_emulator::rest::owners::add(connection, owner_id)?;
                Ok(())
            },
        )
        .await
        .unwrap();
    let now = server.state.clock.now_seconds();
    let owner = server.state.keys.sign(&json!({
        "role": "authenticated", "sub": owner_id, "aal": "aal2", "exp": now + 600,
    }));
    // A visitor listening for everything, another for deletes only, and a signed-in page.
    let mut everything = server.connect("2.0.0").await;
    everything
        .subscribe(TOPIC, json!([table_entry("*", None)]), None)
        .await;
    let mut deletes = server.connect("1.0.0").await;
    deletes
        .subscribe(TOPIC, json!([table_entry("DELETE", None)]), None)
        .await;
    let mut signed_in = server.connect("2.0.0").await;
    signed_in
        .subscribe(TOPIC, json!([table_entry("*", None)]), Some(owner.as_str()))
        .await;
    let row = server
        .insert(json!({"name": "spam", "message": "buy now", "created_at": "2024-05-01T12:00:00Z"}))
        .await
        .remove(0);
    for client in [&mut everything, &mut signed_in] {
        assert_eq!(client.change().await["data"]["type"], "INSERT");
    }

    let as_owner = |method: &str, uri: String, body: Value| {
        Request::builder()
            .method(method)
            .uri(uri)
            .header("apikey", server.publishable())
            .header("authorization", format!("Bearer {owner}"))
            .header("content-type", "application/json")
            .header("prefer", "return=representation")
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let (status, removed) = server
        .request(as_owner(
            "DELETE",
            format!("/rest/v1/geocache_logs?id=eq.{}", row["id"]),
            json!({}),
        ))
        .await;
    assert_eq!((status, removed), (StatusCode::OK, json!([row])));
    for client in [&mut everything, &mut deletes, &mut signed_in] {
        let delete = client.change().await;
        assert_eq!(delete["data"]["type"], "DELETE");
        assert_eq!(delete["data"]["old_record"], json!({"id": row["id"]}));
    }

    let (status, restored) = server
        .request(as_owner(
            "POST",
            "/rest/v1/rpc/restore_geocache_log".to_owned(),
            json!({"entry_id": row["id"]}),
        ))
        .await;
    assert_eq!((status, restored), (StatusCode::OK, json!([row])));
    for client in [&mut everything, &mut signed_in] {
        let insert = client.change().await;
        assert_eq!(insert["data"]["type"], "INSERT");
        // Its own id and created_at, so pages put it back in its place.
        assert_eq!(insert["data"]["record"], row);
    }
    deletes.quiet().await;
}
