//! Realtime with a signed-in user (the npm build): the join carries the user's access token,
//! a refreshed session's token is pushed to the joined channel as `access_token`, and a broadcast
//! sent over HTTP (from a channel not joined) carries the session's token as its bearer.
#![cfg(all(target_arch = "wasm32", feature = "realtime", feature = "auth"))]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod realtime_support;

use geocache_client::create_client;
use realtime_support::*;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn the_token_is_sent_on_join_and_again_after_a_refresh() {
    let sockets = record_sockets();
    let emulator = emulator();
    let options = object(&[(
        "auth",
        object(&[
            ("storageKey", unique("realtime-auth").into()),
            ("persistSession", false.into()),
        ]),
    )]);
    let client = create_client(
        Some(emulator.url.into()),
        Some(emulator.anon_key.into()),
        options,
    )
    .unwrap();
    let email = format!("{}@example.com", unique("rt"));
    let credentials = object(&[
        ("email", email.into()),
        ("password", "correct horse battery staple".into()),
    ]);
    let signed_up = client.auth().sign_up(credentials).await.unwrap();
    let first_token = string(&signed_up, "data.session.access_token");

    let name = unique("signed-in");
    let channel = on_inserts(
        client.channel(&name, JsValue::UNDEFINED).unwrap(),
        &call_recorder(),
    );
    subscribed(&channel).await;
    let joins = joins_of(&sockets, &name);
    assert_eq!(string(&joins[0], "4.access_token"), first_token);

    // A token minted in the same second as the first would be the same token.
    sleep(1100).await;
    let refreshed = client
        .auth()
        .refresh_session(JsValue::UNDEFINED)
        .await
        .unwrap();
    let second_token = string(&refreshed, "data.session.access_token");
    assert_ne!(first_token, second_token);
    wait_until("the access_token push", 3000, || {
        array(call(&sockets, "frames", &["access_token".into()]))
            .iter()
            .any(|frame| get(frame, "4.access_token").as_string() == Some(second_token.clone()))
    })
    .await;
    let push = array(call(&sockets, "frames", &["access_token".into()])).remove(0);
    // Sent on the channel's topic, with its join's ref.
    assert_eq!(get(&push, "2"), get(&joins[0], "2"));
    assert_eq!(get(&push, "0"), get(&joins[0], "0"));

    // A channel not joined broadcasts over HTTP, with the session's current token.
    let posts = record_broadcast_posts();
    let elsewhere = client
        .channel(&unique("not-joined"), JsValue::UNDEFINED)
        .unwrap();
    let sent = elsewhere.send(broadcast("e", JsValue::NULL)).unwrap();
    assert_eq!(settled(sent).await, "ok");
    let post = &array(get(&posts, "posts"))[0];
    assert_eq!(
        string(post, "authorization"),
        format!("Bearer {second_token}")
    );
    assert_eq!(string(post, "apikey"), emulator.anon_key);
    call(&posts, "restore", &[]);

    // Signing out sends the key again.
    client.auth().sign_out(JsValue::UNDEFINED).await.unwrap();
    wait_until("the key after sign-out", 3000, || {
        array(call(&sockets, "frames", &["access_token".into()]))
            .iter()
            .any(|frame| {
                get(frame, "4.access_token").as_string().as_deref() == Some(emulator.anon_key)
            })
    })
    .await;
    client.dispose();
    call(&sockets, "restore", &[]);
}
