//! Helpers for the realtime browser tests (each built where its test file is): a recorder of what
//! the client's WebSockets send and of their states, one of the broadcasts it posts over HTTP,
//! callback recorders, the emulator's socket-drop route and publishable key, and waiting.
#![allow(dead_code)]

#[path = "../common/mod.rs"]
mod common;
pub use common::*;

use geocache_client::RealtimeChannel;
#[cfg(feature = "rest")]
use geocache_client::{create_client, Client};
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(inline_js = r#"
export function recordSockets() {
  const Original = globalThis.WebSocket;
  const sockets = [];
  const sent = [];
  globalThis.WebSocket = class extends Original {
    constructor(...args) {
      super(...args);
      sockets.push(this);
    }
    send(data) {
      if (typeof data === "string") sent.push(data);
      return super.send(data);
    }
  };
  return {
    sockets,
    sent,
    // Text frames (2.0.0 arrays) whose event is `event`, as parsed arrays.
    frames(event) { return sent.map((text) => JSON.parse(text)).filter((frame) => frame[3] === event); },
    // How many of the sockets are CONNECTING or OPEN.
    live() { return sockets.filter((socket) => socket.readyState <= 1).length; },
    restore() { globalThis.WebSocket = Original; },
  };
}

export function recordBroadcastPosts() {
  const original = globalThis.fetch;
  const posts = [];
  globalThis.fetch = function (input, init) {
    const request = input instanceof Request ? input : new Request(input, init);
    if (new URL(request.url).pathname.endsWith("/realtime/v1/api/broadcast")) {
      const post = {
        url: request.url,
        method: request.method,
        apikey: request.headers.get("apikey"),
        authorization: request.headers.get("authorization"),
        contentType: request.headers.get("content-type"),
        body: null,
      };
      posts.push(post);
      // The client hands fetch a Request: its body is read from a copy.
      const copy = request.clone();
      copy.text().then((text) => { post.body = JSON.parse(text); });
      return original.call(this, request);
    }
    return original.call(this, input, init);
  };
  return { posts, restore() { globalThis.fetch = original; } };
}

export function callRecorder() {
  const calls = [];
  return { calls, callback: (...args) => { calls.push(args); } };
}

export async function dropSockets(url, key) {
  const response = await fetch(url + "/emulator/v1/realtime/sockets", {
    method: "DELETE",
    headers: { apikey: key, authorization: "Bearer " + key },
  });
  if (!response.ok) throw new Error("drop failed: " + response.status);
  return (await response.json()).dropped;
}
"#)]
extern "C" {
    /// Wraps `WebSocket`: `{ sockets, sent, frames(event), live(), restore() }`.
    #[wasm_bindgen(js_name = recordSockets)]
    pub fn record_sockets() -> JsValue;
    /// Wraps `fetch`: `{ posts, restore() }`, each `POST /realtime/v1/api/broadcast` as `{ url,
    /// method, apikey, authorization, contentType, body }` (the body parsed, once it is read).
    #[wasm_bindgen(js_name = recordBroadcastPosts)]
    pub fn record_broadcast_posts() -> JsValue;
    /// `{ calls, callback }`: every call's arguments.
    #[wasm_bindgen(js_name = callRecorder)]
    pub fn call_recorder() -> JsValue;
    /// `DELETE /emulator/v1/realtime/sockets` with the service-role key; the count dropped.
    #[wasm_bindgen(js_name = dropSockets)]
    fn drop_sockets_js(url: &str, key: &str) -> Promise;
}

/// Drops every socket the emulator holds, as a restart would.
pub async fn drop_sockets() -> f64 {
    let emulator = emulator();
    let dropped = JsFuture::from(drop_sockets_js(emulator.url, emulator.service_role_key))
        .await
        .expect("the drop route answers");
    dropped.as_f64().expect("a count")
}

/// A client of the emulator with the anon key and no options.
#[cfg(feature = "rest")]
pub fn anon_client() -> Client {
    client_with_key(emulator().anon_key)
}

/// A client of the emulator with `key` and no options.
#[cfg(feature = "rest")]
pub fn client_with_key(key: &str) -> Client {
    create_client(
        Some(emulator().url.into()),
        Some(key.into()),
        JsValue::UNDEFINED,
    )
    .expect("emulator config is valid")
}

/// The emulator's publishable key (`sb_publishable_…`), read at compile time as the others are.
pub fn publishable_key() -> &'static str {
    option_env!("EMULATOR_PUBLISHABLE_KEY")
        .filter(|key| !key.is_empty())
        .expect(
            "EMULATOR_PUBLISHABLE_KEY must be set when the tests are compiled: the `Publishable \
             key:` the emulator prints (scripts/test.mjs sets it)",
        )
}

/// A `broadcast` message for `send`.
pub fn broadcast(event: &str, payload: JsValue) -> JsValue {
    object(&[
        ("type", "broadcast".into()),
        ("event", event.into()),
        ("payload", payload),
    ])
}

/// `channel` listening for every broadcast, each recorded by `recorder`.
pub fn on_broadcasts(channel: RealtimeChannel, recorder: &JsValue) -> RealtimeChannel {
    channel
        .on(
            "broadcast".into(),
            object(&[("event", "*".into())]),
            callback(recorder),
        )
        .expect("a broadcast listener is accepted")
}

pub fn callback(recorder: &JsValue) -> JsValue {
    get(recorder, "callback")
}

/// The recorded calls, each as its arguments.
pub fn calls(recorder: &JsValue) -> Vec<Vec<JsValue>> {
    array(get(recorder, "calls"))
        .into_iter()
        .map(array)
        .collect()
}

/// The statuses a subscribe callback recorder saw, in order.
pub fn statuses(recorder: &JsValue) -> Vec<String> {
    calls(recorder)
        .iter()
        .map(|args| args[0].as_string().expect("a status string"))
        .collect()
}

/// Calls `object.method(...args)`.
pub fn call(object: &JsValue, method: &str, args: &[JsValue]) -> JsValue {
    let function: Function = get(object, method).dyn_into().expect("a method");
    let args: js_sys::Array = args.iter().collect();
    function.apply(object, &args).expect("the call succeeds")
}

/// Polls `condition` every 25 ms until it holds; panics after `timeout_ms`.
pub async fn wait_until(what: &str, timeout_ms: u32, mut condition: impl FnMut() -> bool) {
    let started = js_sys::Date::now();
    while !condition() {
        if js_sys::Date::now() - started > f64::from(timeout_ms) {
            panic!("timed out after {timeout_ms} ms waiting for {what}");
        }
        sleep(25).await;
    }
}

/// Subscribes with a status recorder and waits for SUBSCRIBED.
pub async fn subscribed(channel: &RealtimeChannel) -> JsValue {
    let status = call_recorder();
    channel
        .subscribe(callback(&status))
        .expect("subscribe is accepted");
    wait_until("SUBSCRIBED", 5000, || {
        statuses(&status).iter().any(|s| s == "SUBSCRIBED")
    })
    .await;
    status
}

/// A promise's value (the realtime promises never reject).
pub async fn settled(promise: Promise) -> String {
    JsFuture::from(promise)
        .await
        .expect("resolves")
        .as_string()
        .expect("a string outcome")
}

fn changes_filter() -> JsValue {
    object(&[
        ("event", "INSERT".into()),
        ("schema", "public".into()),
        ("table", "geocache_logs".into()),
    ])
}

/// `channel` listening for the logbook's INSERTs, each payload recorded by `recorder`.
pub fn on_inserts(channel: RealtimeChannel, recorder: &JsValue) -> RealtimeChannel {
    channel
        .on(
            "postgres_changes".into(),
            changes_filter(),
            callback(recorder),
        )
        .expect("a postgres_changes listener is accepted")
}

/// The `phx_join` frames the recorded sockets sent for the channel `name`, in order.
pub fn joins_of(sockets: &JsValue, name: &str) -> Vec<JsValue> {
    let topic = format!("realtime:{name}");
    array(call(sockets, "frames", &["phx_join".into()]))
        .into_iter()
        .filter(|join| get(join, "2").as_string().as_deref() == Some(topic.as_str()))
        .collect()
}
