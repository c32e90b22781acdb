//! Helpers for the fault tests (read_retries.rs, signing.rs, timeouts.rs), usable in both builds
//! (the page's build has no auth, so these do without `support`): clients with a deadline, the
//! emulator's fault plan (`/emulator/v1/faults`, service_role key), row counts, and a `fetch`
//! recorder that sees each attempt, its `X-Retry-Count` and its `Idempotency-Key`.
//!
//! The emulator is shared by every test and its plan applies to every request in scope, so each
//! test installs its plan, acts, reads the rules' counts and clears the plan ([`with_faults`]),
//! and signs with names no other test uses.
#![allow(dead_code)]

#[path = "../common/mod.rs"]
mod common;
pub use common::*;

use std::future::Future;

use geocache_client::transport::Transport;
use geocache_client::{create_client, Client};
use geocache_core::client::http::{percent_encode, Component};
use geocache_core::{HttpRequest, Method};
use js_sys::{Array, Function, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A client of the emulator with `createClient(url, anonKey, { requestTimeoutMs })`.
pub fn client(request_timeout_ms: u32) -> Client {
    let emulator = emulator();
    let options = object(&[("requestTimeoutMs", request_timeout_ms.into())]);
    create_client(
        Some(emulator.url.into()),
        Some(emulator.anon_key.into()),
        options,
    )
    .expect("emulator config is valid")
}

pub fn new_entry(name: &str, message: &str) -> JsValue {
    object(&[("name", name.into()), ("message", message.into())])
}

/// A request with the service_role key as apikey and bearer.
fn service_request(method: Method, path_and_query: &str, body: Option<&str>) -> HttpRequest {
    let emulator = emulator();
    let mut headers = vec![
        ("apikey".into(), emulator.service_role_key.into()),
        (
            "authorization".into(),
            format!("Bearer {}", emulator.service_role_key),
        ),
    ];
    if body.is_some() {
        headers.push(("content-type".into(), "application/json".into()));
    }
    HttpRequest {
        method,
        url: format!("{}{path_and_query}", emulator.url),
        headers,
        body: body.map(str::to_owned),
    }
}

async fn send(request: HttpRequest) -> (u16, String) {
    let response = Transport::default()
        .send(&request)
        .await
        .unwrap_or_else(|failure| panic!("{} failed: {failure:?}", request.url));
    (response.status, response.body)
}

const FAULTS: &str = "/emulator/v1/faults";

/// What one rule of the plan did: requests in its scope, and how many it faulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleStats {
    pub matched: u32,
    pub fired: u32,
}

pub async fn install_faults(plan: &str) {
    let (status, body) = send(service_request(Method::Post, FAULTS, Some(plan))).await;
    assert_eq!(status, 200, "fault plan refused: {body}");
}

pub async fn clear_faults() {
    let (status, body) = send(service_request(Method::Delete, FAULTS, None)).await;
    assert_eq!(status, 204, "{body}");
}

pub async fn fault_stats() -> Vec<RuleStats> {
    let (status, body) = send(service_request(Method::Get, FAULTS, None)).await;
    assert_eq!(status, 200, "{body}");
    let report = JSON::parse(&body).expect("a JSON report");
    let stats: Array = get(&report, "stats").dyn_into().expect("an array");
    stats
        .iter()
        .map(|rule| RuleStats {
            matched: get(&rule, "matched").as_f64().expect("a count") as u32,
            fired: get(&rule, "fired").as_f64().expect("a count") as u32,
        })
        .collect()
}

/// Runs `body` under the fault `plan` (JSON), then clears the plan and returns what `body` gave
/// and each rule's counts as they were when it finished.
pub async fn with_faults<T>(plan: &str, body: impl Future<Output = T>) -> (T, Vec<RuleStats>) {
    install_faults(plan).await;
    let output = body.await;
    let stats = fault_stats().await;
    clear_faults().await;
    (output, stats)
}

/// How many rows named `name` the table holds (service_role; run with no plan installed).
pub async fn rows_named(name: &str) -> usize {
    let query = format!(
        "/rest/v1/geocache_logs?select=id&name=eq.{}",
        percent_encode(name, Component::Query)
    );
    let (status, body) = send(service_request(Method::Get, &query, None)).await;
    assert_eq!(status, 200, "{body}");
    JSON::parse(&body)
        .expect("a JSON array")
        .dyn_into::<Array>()
        .expect("an array")
        .length() as usize
}

/// The error a call rejected with, as JS sees it: a real `Error` with this name and code.
pub fn js_error(error: impl Into<JsValue>, name: &str, code: &str) -> JsValue {
    let value = error.into();
    assert!(
        value.is_instance_of::<js_sys::Error>(),
        "not an Error: {}",
        json(&value)
    );
    assert_eq!(
        string(&value, "name"),
        name,
        "{}",
        string(&value, "message")
    );
    assert_eq!(
        string(&value, "code"),
        code,
        "{}",
        string(&value, "message")
    );
    value
}

#[wasm_bindgen(inline_js = r#"
export function recordFetches() {
  const original = globalThis.fetch;
  const log = [];
  globalThis.fetch = function (input, init) {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    log.push({
      method: request.method,
      path: url.pathname,
      query: url.search,
      retryCount: request.headers.get("x-retry-count"),
      idempotencyKey: request.headers.get("idempotency-key"),
    });
    return original.call(this, input, init);
  };
  return { log, restore() { globalThis.fetch = original; } };
}

export function trackTimeouts() {
  const live = new Set();
  const original = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  globalThis.setTimeout = function (handler, ms, ...rest) {
    let id;
    const fired = typeof handler === "function"
      ? function (...args) { live.delete(id); return handler.apply(this, args); }
      : handler;
    id = original.setTimeout.call(globalThis, fired, ms, ...rest);
    live.add(id);
    return id;
  };
  globalThis.clearTimeout = function (id) {
    live.delete(id);
    return original.clearTimeout.call(globalThis, id);
  };
  return {
    pending() { return live.size; },
    restore() { Object.assign(globalThis, original); },
  };
}
"#)]
extern "C" {
    /// Wraps `fetch`: `{ log: [{method, path, query, retryCount, idempotencyKey}], restore() }`.
    #[wasm_bindgen(js_name = recordFetches)]
    fn record_fetches_js() -> JsValue;
    /// Wraps `setTimeout`/`clearTimeout`: `{ pending(), restore() }`.
    #[wasm_bindgen(js_name = trackTimeouts)]
    pub fn track_timeouts() -> JsValue;
}

/// One `fetch` the client made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetch {
    pub method: String,
    pub path: String,
    pub query: String,
    pub retry_count: Option<String>,
    pub idempotency_key: Option<String>,
}

/// Records every `fetch` until dropped.
pub struct Fetches(JsValue);

pub fn record_fetches() -> Fetches {
    Fetches(record_fetches_js())
}

impl Fetches {
    /// Every request so far, in order.
    pub fn all(&self) -> Vec<Fetch> {
        let log: Array = get(&self.0, "log").dyn_into().expect("an array");
        log.iter()
            .map(|entry| Fetch {
                method: string(&entry, "method"),
                path: string(&entry, "path"),
                query: string(&entry, "query"),
                retry_count: get(&entry, "retryCount").as_string(),
                idempotency_key: get(&entry, "idempotencyKey").as_string(),
            })
            .collect()
    }

    /// The requests so far to `path` (e.g. `/rest/v1/geocache_logs`) with `method`.
    pub fn to(&self, method: &str, path: &str) -> Vec<Fetch> {
        self.all()
            .into_iter()
            .filter(|fetch| fetch.method == method && fetch.path == path)
            .collect()
    }

    /// The `X-Retry-Count` of each request to `path` with `method`, in order.
    pub fn retry_counts(&self, method: &str, path: &str) -> Vec<Option<String>> {
        self.to(method, path)
            .into_iter()
            .map(|fetch| fetch.retry_count)
            .collect()
    }
}

/// The requests of a listing whose first page failed once and was sent again: page 1, its retry
/// (`X-Retry-Count: 1`), then each later page once. How many later pages there are depends on
/// the rows other tests left in the shared emulator: at least the one that ends the listing.
#[track_caller]
pub fn assert_first_page_retried_once(retry_counts: &[Option<String>]) {
    assert!(retry_counts.len() >= 3, "{retry_counts:?}");
    assert_eq!(
        retry_counts[..2],
        [None, Some("1".to_owned())],
        "{retry_counts:?}"
    );
    assert!(
        retry_counts[2..].iter().all(Option::is_none),
        "{retry_counts:?}"
    );
}

impl Drop for Fetches {
    fn drop(&mut self) {
        call(&self.0, "restore");
    }
}

pub fn call(object: &JsValue, method: &str) -> JsValue {
    let function: Function = get(object, method).dyn_into().expect("a method");
    function.call0(object).expect("the call succeeds")
}

pub const LOGS: &str = "/rest/v1/geocache_logs";

/// Inserts `count` rows named `name` in one request (service_role), as one statement: they share
/// one `created_at`, so only their ids order them.
pub async fn insert_rows(name: &str, count: usize) {
    let row = format!(r#"{{"name":"{name}","message":"m"}}"#);
    let body = format!("[{}]", vec![row; count].join(","));
    let (status, body) = send(service_request(Method::Post, LOGS, Some(&body))).await;
    assert_eq!(status, 201, "{body}");
}
