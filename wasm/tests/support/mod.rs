//! Helpers shared by the auth browser tests (each test file is its own crate and uses a subset).
#![allow(dead_code)]

#[path = "../common/mod.rs"]
mod common;
pub use common::*;

use geocache_client::transport::Transport;
use geocache_client::{create_client, Client, ClientError};
use geocache_core::{HttpRequest, Method};
use js_sys::{Array, Function, Reflect, JSON};
use totp_rs::{Algorithm, Secret, TOTP};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub fn unique_email() -> String {
    format!("{}@example.com", unique("user"))
}

pub const PASSWORD: &str = "correct horse battery staple";

/// A client with its own storage key (the tests share one page and one localStorage).
pub fn client_with(storage_key: &str, auth: &[(&str, JsValue)]) -> Client {
    let emulator = emulator();
    let mut properties = vec![("storageKey", JsValue::from(storage_key))];
    properties.extend(auth.iter().cloned());
    let options = object(&[("auth", object(&properties))]);
    create_client(
        Some(emulator.url.into()),
        Some(emulator.anon_key.into()),
        options,
    )
    .expect("emulator config is valid")
}

pub fn client(storage_key: &str) -> Client {
    client_with(storage_key, &[])
}

/// The `data` of a `{ data, error }` result, which must have no error.
pub fn data(result: Result<JsValue, ClientError>) -> JsValue {
    let result = result.unwrap_or_else(|error| panic!("rejected: {error}"));
    let error = get(&result, "error");
    assert!(
        error.is_null(),
        "unexpected error: {} {}",
        string(&error, "name"),
        string(&error, "message")
    );
    get(&result, "data")
}

/// The `error` of a `{ data, error }` result: a real `Error` with auth-js's name, this code and
/// status. Returns the whole result for further checks.
pub fn auth_error(
    result: Result<JsValue, ClientError>,
    name: &str,
    code: Option<&str>,
    status: Option<u16>,
) -> JsValue {
    let result = result.unwrap_or_else(|error| panic!("rejected: {error}"));
    let error = get(&result, "error");
    assert!(
        error.is_instance_of::<js_sys::Error>(),
        "expected an Error, got {}",
        json(&result)
    );
    assert_eq!(
        string(&error, "name"),
        name,
        "{}",
        string(&error, "message")
    );
    assert_eq!(get(&error, "code").as_string().as_deref(), code);
    assert_eq!(get(&error, "status").as_f64(), status.map(f64::from));
    assert_eq!(get(&error, "__isAuthError").as_bool(), Some(true));
    result
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

pub fn credentials(email: &str) -> JsValue {
    object(&[("email", email.into()), ("password", PASSWORD.into())])
}

/// Signs a new user up (the emulator auto-confirms) and returns the session data.
pub async fn sign_up(client: &Client) -> (String, JsValue) {
    let email = unique_email();
    let data = data(client.auth().sign_up(credentials(&email)).await);
    assert!(
        get(&data, "session").is_object(),
        "no session: {}",
        json(&data)
    );
    (email, data)
}

/// The TOTP code an authenticator app shows now for this base32 secret.
pub fn totp_code(secret: &str) -> String {
    let bytes = Secret::Encoded(secret.to_owned())
        .to_bytes()
        .expect("a base32 secret");
    let totp = TOTP::new(Algorithm::SHA1, 6, 1, 30, bytes).expect("a valid TOTP secret");
    totp.generate((js_sys::Date::now() / 1000.0) as u64)
}

/// The emulator's SMS outbox (`GET /emulator/v1/sms`, service-role key), oldest first.
pub async fn sms_outbox() -> Vec<JsValue> {
    let emulator = emulator();
    let request = HttpRequest {
        method: Method::Get,
        url: format!("{}/emulator/v1/sms", emulator.url.trim_end_matches('/')),
        headers: vec![
            ("apikey".into(), emulator.service_role_key.into()),
            (
                "authorization".into(),
                format!("Bearer {}", emulator.service_role_key),
            ),
        ],
        body: None,
    };
    let response = Transport::default()
        .send(&request)
        .await
        .expect("outbox reachable");
    assert_eq!(response.status, 200, "{}", response.body);
    array(JSON::parse(&response.body).expect("outbox JSON"))
}

/// The 6-digit code in the newest SMS to `phone`.
pub async fn sms_code(phone: &str) -> String {
    let messages = sms_outbox().await;
    let body = messages
        .iter()
        .rev()
        .find(|message| string(message, "phone") == phone)
        .map(|message| string(message, "body"))
        .unwrap_or_else(|| panic!("no SMS to {phone}"));
    let digits: Vec<char> = body.chars().collect();
    digits
        .windows(6)
        .find(|window| window.iter().all(char::is_ascii_digit))
        .map(|window| window.iter().collect())
        .unwrap_or_else(|| panic!("no 6-digit code in {body:?}"))
}

/// A fresh E.164 number.
pub fn unique_phone() -> String {
    let random = (js_sys::Math::random() * 1e9) as u64;
    format!("+1555{random:09}")
}

/// The session JSON stored under `key`, parsed.
pub fn stored(key: &str) -> Option<JsValue> {
    let storage = web_sys::window()?.local_storage().ok()??;
    let text = storage.get_item(key).ok()??;
    JSON::parse(&text).ok()
}

pub fn store(key: &str, value: &JsValue) {
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    let text: String = JSON::stringify(value).unwrap().into();
    storage.set_item(key, &text).unwrap();
}

/// Moves the stored session's `expires_at` to `seconds` from now: the client acts on the stored
/// expiry, so this makes a fresh session "close to expiry" whatever the emulator's --jwt-expiry.
pub fn expire_stored_session_in(key: &str, seconds: f64) {
    let session = stored(key).expect("a stored session");
    let expires_at = (js_sys::Date::now() / 1000.0).floor() + seconds;
    Reflect::set(&session, &"expires_at".into(), &expires_at.into()).unwrap();
    store(key, &session);
}

#[wasm_bindgen(inline_js = r#"
export function recorder() {
  const events = [];
  const callback = (event, session) => { events.push({ event, session }); };
  return { events, callback };
}

export function recordFetches() {
  const original = globalThis.fetch;
  const log = [];
  const state = { fail: null };
  globalThis.fetch = function (input, init) {
    const request = input instanceof Request ? input : new Request(input, init);
    log.push({
      url: request.url,
      method: request.method,
      authorization: request.headers.get("authorization"),
      apikey: request.headers.get("apikey"),
    });
    if (state.fail && request.url.includes(state.fail)) {
      return Promise.reject(new TypeError("Failed to fetch"));
    }
    return original.call(this, input, init);
  };
  return {
    log,
    failMatching(text) { state.fail = text; },
    count(text) { return log.filter((entry) => entry.url.includes(text)).length; },
    restore() { globalThis.fetch = original; },
  };
}

export function recordConsoleErrors() {
  const original = console.error;
  const calls = [];
  console.error = function (...args) { calls.push(args); return original.apply(this, args); };
  return { calls, restore() { console.error = original; } };
}

export function trackTimersAndListeners() {
  const live = new Set();
  const listeners = new Set();
  const original = {
    setInterval: globalThis.setInterval,
    clearInterval: globalThis.clearInterval,
    setTimeout: globalThis.setTimeout,
    clearTimeout: globalThis.clearTimeout,
    add: document.addEventListener,
    remove: document.removeEventListener,
  };
  globalThis.setInterval = function (handler, ms, ...rest) {
    const id = original.setInterval.call(globalThis, handler, ms, ...rest);
    live.add("interval " + id);
    return id;
  };
  globalThis.clearInterval = function (id) {
    live.delete("interval " + id);
    return original.clearInterval.call(globalThis, id);
  };
  globalThis.setTimeout = function (handler, ms, ...rest) {
    let id;
    const fired = typeof handler === "function"
      ? function (...args) { live.delete("timeout " + id); return handler.apply(this, args); }
      : handler;
    id = original.setTimeout.call(globalThis, fired, ms, ...rest);
    live.add("timeout " + id);
    return id;
  };
  globalThis.clearTimeout = function (id) {
    live.delete("timeout " + id);
    return original.clearTimeout.call(globalThis, id);
  };
  document.addEventListener = function (type, listener, options) {
    if (type === "visibilitychange") listeners.add(listener);
    return original.add.call(this, type, listener, options);
  };
  document.removeEventListener = function (type, listener, options) {
    if (type === "visibilitychange") listeners.delete(listener);
    return original.remove.call(this, type, listener, options);
  };
  return {
    intervals() { return [...live].filter((key) => key.startsWith("interval")).length; },
    timers() { return live.size; },
    listeners() { return listeners.size; },
    restore() {
      Object.assign(globalThis, {
        setInterval: original.setInterval,
        clearInterval: original.clearInterval,
        setTimeout: original.setTimeout,
        clearTimeout: original.clearTimeout,
      });
      document.addEventListener = original.add;
      document.removeEventListener = original.remove;
    },
  };
}

export function setVisibility(state) {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => state });
  document.dispatchEvent(new Event("visibilitychange"));
}

export function resetVisibility() {
  delete document.visibilityState;
}
"#)]
extern "C" {
    /// `{ events, callback }`: a callback for onAuthStateChange that records `{event, session}`.
    pub fn recorder() -> JsValue;
    /// Wraps `fetch`: `{ log, failMatching(text), count(text), restore() }`.
    #[wasm_bindgen(js_name = recordFetches)]
    pub fn record_fetches() -> JsValue;
    /// Wraps `console.error`: `{ calls, restore() }`.
    #[wasm_bindgen(js_name = recordConsoleErrors)]
    pub fn record_console_errors() -> JsValue;
    /// Wraps the timer functions and document listeners: `{ intervals(), timers(), listeners(), restore() }`.
    #[wasm_bindgen(js_name = trackTimersAndListeners)]
    pub fn track_timers_and_listeners() -> JsValue;
    /// Overrides `document.visibilityState` and dispatches `visibilitychange`.
    #[wasm_bindgen(js_name = setVisibility)]
    pub fn set_visibility(state: &str);
    /// Removes the override.
    #[wasm_bindgen(js_name = resetVisibility)]
    pub fn reset_visibility();
}

/// Calls `object.method(...args)`.
pub fn call(object: &JsValue, method: &str, args: &[JsValue]) -> JsValue {
    let function: Function = get(object, method).dyn_into().expect("a method");
    let args: Array = args.iter().collect();
    function.apply(object, &args).expect("the call succeeds")
}

/// The events a [`recorder`] saw, by name.
pub fn event_names(recorder: &JsValue) -> Vec<String> {
    array(get(recorder, "events"))
        .iter()
        .map(|entry| string(entry, "event"))
        .collect()
}

/// Subscribes a new recorder to the client's auth events.
pub fn subscribe(client: &Client) -> JsValue {
    let recorder = recorder();
    let callback = get(&recorder, "callback");
    client
        .auth()
        .on_auth_state_change(callback)
        .expect("a function is accepted");
    recorder
}
