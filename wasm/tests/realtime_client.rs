//! The standalone `RealtimeClient` (`createRealtimeClient`) against the emulator in headless
//! Chromium, as the logbook page uses it (wasm/pkg-live, which has no REST client): a channel
//! joins with the key, hears a row inserted by someone else once, and after `removeChannel` is
//! gone and hears nothing more.
#![cfg(all(target_arch = "wasm32", feature = "realtime"))]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod realtime_support;

use js_sys::Promise;
use realtime_support::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

use geocache_client::{create_realtime_client, RealtimeClient};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
export async function insertEntry(url, key, name) {
  const response = await fetch(url + "/rest/v1/geocache_logs", {
    method: "POST",
    headers: { apikey: key, authorization: "Bearer " + key, "content-type": "application/json" },
    body: JSON.stringify({ name, message: "heard live" }),
  });
  if (!response.ok) throw new Error("insert failed: " + response.status + " " + (await response.text()));
}
"#)]
extern "C" {
    /// A visitor's sign, sent by someone else (a plain PostgREST insert with the anon key).
    #[wasm_bindgen(js_name = insertEntry)]
    fn insert_entry_js(url: &str, key: &str, name: &str) -> Promise;
}

async fn insert_entry(name: &str) {
    let emulator = emulator();
    JsFuture::from(insert_entry_js(emulator.url, emulator.anon_key, name))
        .await
        .expect("the insert is stored");
}

fn realtime_client() -> RealtimeClient {
    let emulator = emulator();
    create_realtime_client(Some(emulator.url.into()), Some(emulator.anon_key.into()))
        .expect("emulator config is valid")
}

/// How many INSERT payloads the recorder saw for a row of this name.
fn inserts_named(recorder: &JsValue, name: &str) -> usize {
    calls(recorder)
        .iter()
        .filter(|args| get(&args[0], "new.name").as_string().as_deref() == Some(name))
        .count()
}

#[wasm_bindgen_test]
async fn a_channel_joins_with_the_key_hears_an_insert_once_and_is_gone_after_remove_channel() {
    let sockets = record_sockets();
    let client = realtime_client();
    let changes = call_recorder();
    let name = unique("live-page");
    let channel = on_inserts(client.channel(&name, JsValue::UNDEFINED).unwrap(), &changes);
    assert_eq!(client.get_channels().len(), 1);
    subscribed(&channel).await;
    // Nobody signs in through this client: the join carries the key.
    let joins = joins_of(&sockets, &name);
    assert_eq!(joins.len(), 1);
    assert_eq!(
        get(&joins[0], "4.access_token").as_string().as_deref(),
        Some(emulator().anon_key)
    );

    let first = unique("heard");
    insert_entry(&first).await;
    wait_until("the INSERT", 5000, || inserts_named(&changes, &first) > 0).await;
    // Anything doubled would have arrived by now.
    sleep(300).await;
    assert_eq!(inserts_named(&changes, &first), 1);
    let payload = &calls(&changes)[0][0];
    assert_eq!(string(payload, "eventType"), "INSERT");
    assert_eq!(string(payload, "new.message"), "heard live");

    assert_eq!(settled(client.remove_channel(&channel)).await, "ok");
    assert!(client.get_channels().is_empty());
    let second = unique("unheard");
    insert_entry(&second).await;
    sleep(500).await;
    assert_eq!(
        inserts_named(&changes, &second),
        0,
        "a removed channel hears nothing"
    );

    client.dispose();
    assert_eq!(client.realtime().client().resources(), (false, false));
    assert_eq!(call(&sockets, "live", &[]).as_f64(), Some(0.0));
    call(&sockets, "restore", &[]);
}

#[wasm_bindgen_test]
async fn the_same_name_is_the_same_channel_and_remove_all_channels_leaves_each() {
    let client = realtime_client();
    let name = unique("twice");
    let first = client.channel(&name, JsValue::UNDEFINED).unwrap();
    let again = client.channel(&name, JsValue::UNDEFINED).unwrap();
    assert_eq!(first.topic(), again.topic());
    client
        .channel(&unique("other"), JsValue::UNDEFINED)
        .unwrap();
    assert_eq!(client.get_channels().len(), 2);
    subscribed(&first).await;
    let results = array(
        JsFuture::from(client.remove_all_channels())
            .await
            .expect("resolves"),
    );
    assert_eq!(results.len(), 2);
    assert!(client.get_channels().is_empty());
    client.dispose();
}
