//! Realtime through `createClient`'s `client.channel` against the emulator in headless Chromium
//! (the npm build: the page's logbook build has no realtime, and its live build no `createClient`,
//! so neither compiles these): a REST insert reaches a postgres_changes listener once, and ten
//! signed one after another arrive once each in id order (with a publishable key); broadcasts go
//! between two clients (with `self` and `ack`), and over HTTP from a channel that is not joined;
//! the channel rejoins after the emulator drops its socket; and `dispose()` closes the socket and
//! clears the timer.
#![cfg(all(target_arch = "wasm32", feature = "rest", feature = "realtime"))]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod realtime_support;

use realtime_support::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn entry(name: &str) -> JsValue {
    object(&[("name", name.into()), ("message", "seen live".into())])
}

/// The payloads a listener recorder saw whose row has this name.
fn inserts_named(recorder: &JsValue, name: &str) -> Vec<JsValue> {
    calls(recorder)
        .into_iter()
        .map(|args| args[0].clone())
        .filter(|payload| get(payload, "new.name").as_string().as_deref() == Some(name))
        .collect()
}

#[wasm_bindgen_test]
async fn a_rest_insert_reaches_a_postgres_changes_listener_once() {
    let sockets = record_sockets();
    let client = anon_client();
    let changes = call_recorder();
    let name = unique("logbook");
    let channel = on_inserts(client.channel(&name, JsValue::UNDEFINED).unwrap(), &changes);
    subscribed(&channel).await;
    // Without a session the join carries the key, as supabase-js sends it.
    let joins = joins_of(&sockets, &name);
    assert_eq!(
        get(&joins[0], "4.access_token").as_string().as_deref(),
        Some(emulator().anon_key)
    );
    assert_eq!(
        get(&joins[0], "4.config.postgres_changes.0.table")
            .as_string()
            .as_deref(),
        Some("geocache_logs")
    );

    let name = unique("live");
    client
        .sign_logbook(entry(&name), JsValue::UNDEFINED)
        .await
        .unwrap();
    wait_until("the INSERT", 5000, || {
        !inserts_named(&changes, &name).is_empty()
    })
    .await;
    // Anything doubled would have arrived by now.
    sleep(300).await;
    let inserts = inserts_named(&changes, &name);
    assert_eq!(inserts.len(), 1, "{}", json(&get(&changes, "calls")));
    let payload = &inserts[0];
    assert_eq!(string(payload, "eventType"), "INSERT");
    assert_eq!(string(payload, "schema"), "public");
    assert_eq!(string(payload, "table"), "geocache_logs");
    assert!(
        number(payload, "new.id") > 0.0,
        "ids are numbers: {}",
        json(payload)
    );
    assert_eq!(string(payload, "new.message"), "seen live");
    assert_eq!(json(&get(payload, "old")), "{}");
    assert!(!string(payload, "commit_timestamp").is_empty());

    client.dispose();
    call(&sockets, "restore", &[]);
}

#[wasm_bindgen_test]
async fn broadcasts_go_between_two_clients_with_self_and_ack() {
    let room = unique("room");
    let (sender, receiver) = (anon_client(), anon_client());
    let config = object(&[(
        "config",
        object(&[(
            "broadcast",
            object(&[("self", true.into()), ("ack", true.into())]),
        )]),
    )]);
    let heard_by_sender = call_recorder();
    let sending = sender
        .channel(&room, config)
        .unwrap()
        .on(
            "broadcast".into(),
            object(&[("event", "wave".into())]),
            callback(&heard_by_sender),
        )
        .unwrap();
    let heard_by_receiver = call_recorder();
    let receiving = receiver
        .channel(&room, JsValue::UNDEFINED)
        .unwrap()
        .on(
            "broadcast".into(),
            object(&[("event", "*".into())]),
            callback(&heard_by_receiver),
        )
        .unwrap();
    subscribed(&sending).await;
    subscribed(&receiving).await;

    let message = object(&[
        ("type", "broadcast".into()),
        ("event", "wave".into()),
        ("payload", object(&[("n", 1.into())])),
    ]);
    // With `ack`, 'ok' means the server has it.
    assert_eq!(settled(sending.send(message).unwrap()).await, "ok");
    wait_until("both to hear the wave", 5000, || {
        calls(&heard_by_sender).len() == 1 && calls(&heard_by_receiver).len() == 1
    })
    .await;
    let received = &calls(&heard_by_receiver)[0][0];
    assert_eq!(
        json(received),
        r#"{"type":"broadcast","event":"wave","payload":{"n":1}}"#
    );

    // Without `self`, the receiver's own broadcast reaches only the other client.
    let reply = object(&[
        ("type", "broadcast".into()),
        ("event", "wave".into()),
        ("payload", object(&[("n", 2.into())])),
    ]);
    assert_eq!(settled(receiving.send(reply).unwrap()).await, "ok");
    wait_until("the sender to hear the reply", 5000, || {
        calls(&heard_by_sender).len() == 2
    })
    .await;
    sleep(300).await;
    assert_eq!(calls(&heard_by_receiver).len(), 1);

    sender.dispose();
    receiver.dispose();
}

#[wasm_bindgen_test]
async fn inserts_signed_one_after_another_arrive_once_each_in_id_order() {
    let sockets = record_sockets();
    // Today's key format, as a hosted project hands it out.
    let client = client_with_key(publishable_key());
    let changes = call_recorder();
    let channel_name = unique("in-order");
    let channel = on_inserts(
        client.channel(&channel_name, JsValue::UNDEFINED).unwrap(),
        &changes,
    );
    subscribed(&channel).await;
    // Without a session the join carries the key itself, as supabase-js sends it.
    let joins = joins_of(&sockets, &channel_name);
    assert_eq!(
        get(&joins[0], "4.access_token").as_string().as_deref(),
        Some(publishable_key())
    );

    let batch = unique("batch");
    let names: Vec<String> = (1..=10).map(|n| format!("{batch}-{n}")).collect();
    for name in &names {
        client
            .sign_logbook(entry(name), JsValue::UNDEFINED)
            .await
            .unwrap();
    }
    let ours = || -> Vec<JsValue> {
        calls(&changes)
            .into_iter()
            .map(|args| args[0].clone())
            .filter(|payload| {
                get(payload, "new.name")
                    .as_string()
                    .is_some_and(|name| name.starts_with(&batch))
            })
            .collect()
    };
    wait_until("ten INSERTs", 10_000, || ours().len() >= names.len()).await;
    // Anything doubled would have arrived by now.
    sleep(300).await;
    let arrived = ours();
    let arrived_names: Vec<String> = arrived.iter().map(|p| string(p, "new.name")).collect();
    assert_eq!(arrived_names, names, "each once, in the order signed");
    let ids: Vec<f64> = arrived.iter().map(|p| number(p, "new.id")).collect();
    assert!(
        ids.windows(2).all(|pair| pair[0] < pair[1]),
        "in id order: {ids:?}"
    );

    client.dispose();
    call(&sockets, "restore", &[]);
}

#[wasm_bindgen_test]
async fn a_channel_not_joined_broadcasts_over_http_to_another_client() {
    let sockets = record_sockets();
    let room = unique("over-http");
    let listener = anon_client();
    let heard = call_recorder();
    let listening = on_broadcasts(listener.channel(&room, JsValue::UNDEFINED).unwrap(), &heard);
    subscribed(&listening).await;

    let posts = record_broadcast_posts();
    let sender = client_with_key(publishable_key());
    // Never subscribed: no socket, so the message goes over HTTP, as supabase-js sends it.
    let never_joined = sender.channel(&room, JsValue::UNDEFINED).unwrap();
    let message = broadcast("wave", object(&[("n", 1.into())]));
    assert_eq!(settled(never_joined.send(message).unwrap()).await, "ok");
    wait_until("the listener to hear it", 5000, || calls(&heard).len() == 1).await;
    assert_eq!(
        json(&calls(&heard)[0][0]),
        r#"{"type":"broadcast","event":"wave","payload":{"n":1}}"#
    );
    assert_eq!(
        call(&sockets, "live", &[]).as_f64(),
        Some(1.0),
        "the listener's only"
    );
    let post = &array(get(&posts, "posts"))[0];
    assert_eq!(string(post, "method"), "POST");
    assert_eq!(
        string(post, "url"),
        format!(
            "{}/realtime/v1/api/broadcast?apikey={}&vsn=2.0.0",
            emulator().url,
            publishable_key()
        )
    );
    assert_eq!(string(post, "apikey"), publishable_key());
    assert_eq!(
        string(post, "authorization"),
        format!("Bearer {}", publishable_key())
    );
    assert_eq!(string(post, "contentType"), "application/json");
    wait_until("the body to be read", 1000, || !get(post, "body").is_null()).await;
    assert_eq!(
        json(&get(post, "body")),
        format!(
            r#"{{"messages":[{{"topic":"{room}","event":"wave","payload":{{"n":1}},"private":false}}]}}"#
        )
    );

    // A key the gateway refuses: the send resolves 'error', and nobody hears it.
    let refused = client_with_key("sb_publishable_unknown");
    let channel = refused.channel(&room, JsValue::UNDEFINED).unwrap();
    let message = broadcast("wave", object(&[("n", 2.into())]));
    assert_eq!(settled(channel.send(message).unwrap()).await, "error");
    sleep(300).await;
    assert_eq!(calls(&heard).len(), 1);

    call(&posts, "restore", &[]);
    call(&sockets, "restore", &[]);
    for client in [listener, sender, refused] {
        client.dispose();
    }
}

#[wasm_bindgen_test]
async fn a_channel_rejoins_after_the_emulator_drops_the_socket() {
    let client = anon_client();
    let changes = call_recorder();
    let channel = on_inserts(
        client
            .channel(&unique("reconnect"), JsValue::UNDEFINED)
            .unwrap(),
        &changes,
    );
    let status = subscribed(&channel).await;
    assert!(drop_sockets().await >= 1.0);
    // CHANNEL_ERROR when the socket goes, SUBSCRIBED again after the 1 s reconnect.
    wait_until("the rejoin", 8000, || {
        statuses(&status) == ["SUBSCRIBED", "CHANNEL_ERROR", "SUBSCRIBED"]
    })
    .await;
    let name = unique("after-drop");
    client
        .sign_logbook(entry(&name), JsValue::UNDEFINED)
        .await
        .unwrap();
    wait_until("the INSERT after the rejoin", 5000, || {
        inserts_named(&changes, &name).len() == 1
    })
    .await;
    client.dispose();
}

#[wasm_bindgen_test]
async fn dispose_closes_the_socket_clears_the_timer_and_settles_sends() {
    let sockets = record_sockets();
    let client = anon_client();
    let config = object(&[(
        "config",
        object(&[("broadcast", object(&[("ack", true.into())]))]),
    )]);
    let channel = client.channel(&unique("dispose"), config).unwrap();
    let status = subscribed(&channel).await;
    assert_eq!(client.realtime().client().resources(), (true, true));
    assert_eq!(call(&sockets, "live", &[]).as_f64(), Some(1.0));
    let message = object(&[("type", "broadcast".into()), ("event", "e".into())]);
    let pending = channel.send(message).unwrap();

    client.dispose();
    assert_eq!(client.realtime().client().resources(), (false, false));
    assert_eq!(call(&sockets, "live", &[]).as_f64(), Some(0.0));
    assert!(client.get_channels().is_empty());
    // A send still waiting for its acknowledgement gives up.
    assert_eq!(settled(pending).await, "error");
    // Nothing reconnects.
    sleep(1500).await;
    assert_eq!(call(&sockets, "live", &[]).as_f64(), Some(0.0));
    assert_eq!(statuses(&status), ["SUBSCRIBED"]);
    client.dispose();
    call(&sockets, "restore", &[]);
}

#[wasm_bindgen_test]
async fn unsubscribing_closes_and_removes_the_channel() {
    let client = anon_client();
    let left_name = unique("left");
    let first = client.channel(&left_name, JsValue::UNDEFINED).unwrap();
    let second = client.channel(&unique("kept"), JsValue::UNDEFINED).unwrap();
    let status = subscribed(&first).await;
    subscribed(&second).await;
    let listener = anon_client();
    let heard = call_recorder();
    let listening = on_broadcasts(
        listener.channel(&left_name, JsValue::UNDEFINED).unwrap(),
        &heard,
    );
    subscribed(&listening).await;
    assert_eq!(client.get_channels().len(), 2);
    assert_eq!(settled(client.remove_channel(&first)).await, "ok");
    assert_eq!(statuses(&status), ["SUBSCRIBED", "CLOSED"]);
    let left: Vec<String> = client.get_channels().iter().map(|c| c.topic()).collect();
    assert_eq!(left, [second.topic()]);
    // A removed channel keeps its topic, and its broadcasts still reach the topic (over HTTP).
    assert_eq!(first.topic(), format!("realtime:{left_name}"));
    let message = broadcast("e", JsValue::UNDEFINED);
    assert_eq!(settled(first.send(message).unwrap()).await, "ok");
    wait_until("the other client to hear it", 5000, || {
        calls(&heard).len() == 1
    })
    .await;
    assert_eq!(
        json(&calls(&heard)[0][0]),
        r#"{"type":"broadcast","event":"e","payload":null}"#
    );
    listener.dispose();
    let all = wasm_bindgen_futures::JsFuture::from(client.remove_all_channels())
        .await
        .unwrap();
    assert_eq!(json(&all), r#"["ok"]"#);
    assert!(client.get_channels().is_empty());
    client.dispose();
}

#[wasm_bindgen_test]
fn bad_arguments_are_type_errors_with_a_code() {
    let client = anon_client();
    let channel = client.channel(&unique("args"), JsValue::UNDEFINED).unwrap();
    let errors = [
        channel
            .on("presence".into(), object(&[]), callback(&call_recorder()))
            .err(),
        channel
            .on("broadcast".into(), object(&[]), callback(&call_recorder()))
            .err(),
        channel
            .on("system".into(), object(&[]), JsValue::from(1))
            .err(),
        channel
            .send(object(&[
                ("type", "presence".into()),
                ("event", "x".into()),
            ]))
            .err(),
        client
            .channel(
                "x",
                object(&[(
                    "config",
                    object(&[("broadcast", object(&[("self", "yes".into())]))]),
                )]),
            )
            .err(),
    ];
    for error in errors {
        let error: JsValue = error.expect("refused").into();
        assert!(
            error.is_instance_of::<js_sys::TypeError>(),
            "{}",
            json(&error)
        );
        assert_eq!(string(&error, "code"), "invalid_argument");
    }
    channel.subscribe(JsValue::UNDEFINED).unwrap();
    let again: JsValue = channel
        .subscribe(JsValue::UNDEFINED)
        .err()
        .expect("refused")
        .into();
    assert_eq!(string(&again, "name"), "RealtimeError");
    assert_eq!(string(&again, "code"), "already_subscribed");
    client.dispose();
}
