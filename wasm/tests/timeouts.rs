//! The request deadline (`createClient(url, key, { requestTimeoutMs })`): validated like the other
//! options, aborting a request whose headers or body are late (AbortController), retried for
//! reads, failing with `code: "timeout"`, and leaving no timer behind.
#![cfg(all(target_arch = "wasm32", feature = "rest"))]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod faults;

use faults::*;
use geocache_client::transport::Transport;
use geocache_client::{create_client, ClientError};
use geocache_core::rest::logbook::list_entries_request;
use geocache_core::{ClientConfig, NoResponse, RequestTimeout};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Nothing listens on this privileged port on a test machine, and Chromium does not block it.
const UNUSED_PORT_URL: &str = "http://127.0.0.1:47";

fn create(options: JsValue) -> Result<geocache_client::Client, JsValue> {
    let emulator = emulator();
    create_client(
        Some(emulator.url.into()),
        Some(emulator.anon_key.into()),
        options,
    )
    .map_err(JsValue::from)
}

#[wasm_bindgen_test]
fn request_timeout_ms_must_be_a_whole_positive_timer_delay() {
    for good in [
        JsValue::UNDEFINED,
        JsValue::NULL,
        1.into(),
        30_000.into(),
        2_147_483_647.0.into(),
    ] {
        let options = object(&[("requestTimeoutMs", good.clone())]);
        assert!(create(options).is_ok(), "{good:?}");
    }
    for options in [JsValue::UNDEFINED, JsValue::NULL, object(&[])] {
        assert!(create(options).is_ok());
    }
    let bad = [
        JsValue::from(0),
        JsValue::from(-1),
        JsValue::from(1.5),
        JsValue::from(f64::NAN),
        JsValue::from(f64::INFINITY),
        JsValue::from(2_147_483_648.0),
        JsValue::from("1000"),
        JsValue::from(true),
        object(&[]),
    ];
    for value in bad {
        let options = object(&[("requestTimeoutMs", value.clone())]);
        let error = create(options)
            .err()
            .unwrap_or_else(|| panic!("{value:?} accepted"));
        assert!(error.is_instance_of::<js_sys::TypeError>(), "{value:?}");
        assert_eq!(string(&error, "code"), "invalid_argument");
        assert!(
            string(&error, "message").starts_with("invalid options: "),
            "{}",
            string(&error, "message")
        );
    }
    let error = create(object(&[("requestTimeoutMs", 0.5.into())]))
        .err()
        .unwrap();
    assert_eq!(
        string(&error, "message"),
        "invalid options: requestTimeoutMs must be a whole number of milliseconds from 1 to \
         2147483647, found 0.5"
    );
    // Options are an object (or absent).
    let error = create(JsValue::from(5)).err().expect("refused");
    assert_eq!(string(&error, "code"), "invalid_argument");
}

#[wasm_bindgen_test]
async fn a_read_past_its_deadline_is_aborted_and_retried() {
    // A deadline that a loaded test machine still meets for a plain read.
    let client = client(1_000);
    let fetches = record_fetches();
    let plan = r#"{"rules": [{"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"],
        "limit": 1, "fault": {"kind": "latency", "ms": 4000}}]}"#;
    let started = js_sys::Date::now();
    let (list, stats) = with_faults(plan, client.list_entries(JsValue::UNDEFINED)).await;
    let took = js_sys::Date::now() - started;
    list.expect("the retry succeeds");
    assert_first_page_retried_once(&fetches.retry_counts("GET", LOGS));
    assert_eq!(stats[0].fired, 1);
    // 1 s deadline + 1 s back-off + the retry, not the 4 s the first answer would have taken.
    assert!((2_000.0..4_000.0).contains(&took), "took {took} ms");
}

#[wasm_bindgen_test]
async fn a_timed_out_request_fails_with_the_code_timeout() {
    let emulator = emulator();
    let config = ClientConfig::new(emulator.url, emulator.anon_key).unwrap();
    let request = list_entries_request(&config, None);
    let transport = Transport::new(RequestTimeout::from_ms(150.0).unwrap());
    let plan = r#"{"rules": [{"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"],
        "fault": {"kind": "latency", "ms": 1000}}]}"#;
    let (outcome, _) = with_faults(plan, transport.send(&request)).await;
    assert_eq!(outcome, Err(NoResponse::TimedOut(transport.timeout())));
    let error = geocache_core::logbook::outcome::expect_success(outcome).unwrap_err();
    let error = js_error(ClientError::from(error), "LogbookError", "timeout");
    assert_eq!(string(&error, "message"), "request timed out after 150 ms");
    assert_eq!(get(&error, "status").as_f64(), Some(0.0));
    assert_eq!(get(&error, "retryable").as_bool(), Some(true));
}

#[wasm_bindgen(inline_js = r#"
export function stallBodies() {
  const original = globalThis.fetch;
  globalThis.fetch = function (input, init) {
    const request = input instanceof Request ? input : new Request(input, init);
    // Headers at once, then a body that never ends; aborting errors it, as a real fetch's does.
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("[{"));
        request.signal.addEventListener("abort", () =>
          controller.error(new DOMException("signal is aborted without reason", "AbortError")));
      },
    });
    return Promise.resolve(new Response(body, { status: 200 }));
  };
  return { restore() { globalThis.fetch = original; } };
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = stallBodies)]
    fn stall_bodies() -> JsValue;
}

#[wasm_bindgen_test]
async fn the_deadline_covers_a_body_that_stalls() {
    let emulator = emulator();
    let config = ClientConfig::new(emulator.url, emulator.anon_key).unwrap();
    let request = list_entries_request(&config, None);
    let transport = Transport::new(RequestTimeout::from_ms(150.0).unwrap());
    let stub = stall_bodies();
    let outcome = transport.send(&request).await;
    call(&stub, "restore");
    assert_eq!(outcome, Err(NoResponse::TimedOut(transport.timeout())));
}

#[wasm_bindgen_test]
async fn deadlines_are_cleared_whatever_the_outcome() {
    let timers = track_timeouts();
    let emulator = emulator();
    let config = ClientConfig::new(emulator.url, emulator.anon_key).unwrap();
    let transport = Transport::new(RequestTimeout::from_ms(5_000.0).unwrap());

    let answered = transport.send(&list_entries_request(&config, None)).await;
    assert_eq!(answered.map(|response| response.status), Ok(200));
    assert_eq!(get_pending(&timers), 0.0, "after an answer");

    let offline = ClientConfig::new(UNUSED_PORT_URL, emulator.anon_key).unwrap();
    let refused = transport.send(&list_entries_request(&offline, None)).await;
    assert!(
        matches!(refused, Err(NoResponse::Network(_))),
        "{refused:?}"
    );
    assert_eq!(get_pending(&timers), 0.0, "after a network failure");

    let short = Transport::new(RequestTimeout::from_ms(100.0).unwrap());
    let plan = r#"{"rules": [{"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"],
        "fault": {"kind": "latency", "ms": 500}}]}"#;
    let (late, _) = with_faults(plan, short.send(&list_entries_request(&config, None))).await;
    assert!(matches!(late, Err(NoResponse::TimedOut(_))), "{late:?}");
    assert_eq!(get_pending(&timers), 0.0, "after a timeout");

    // A whole client call, retry included.
    let client = client(5_000);
    let plan = r#"{"rules": [{"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"],
        "limit": 1, "fault": {"kind": "status", "status": 503}}]}"#;
    let (list, _) = with_faults(plan, client.list_entries(JsValue::UNDEFINED)).await;
    list.expect("retried");
    assert_eq!(get_pending(&timers), 0.0, "after a retried read");
    call(&timers, "restore");
}

fn get_pending(timers: &JsValue) -> f64 {
    call(timers, "pending").as_f64().expect("a count")
}

#[cfg(feature = "auth")]
#[wasm_bindgen_test]
async fn auth_requests_time_out_as_retryable_fetch_errors() {
    let emulator = emulator();
    let auth = object(&[
        ("storageKey", unique("sb-timeout").into()),
        ("autoRefreshToken", false.into()),
    ]);
    let options = object(&[("requestTimeoutMs", 200.into()), ("auth", auth)]);
    let client = create_client(
        Some(emulator.url.into()),
        Some(emulator.anon_key.into()),
        options,
    )
    .expect("valid options");
    let credentials = object(&[
        ("email", "slow@example.com".into()),
        ("password", "correct horse battery staple".into()),
    ]);
    let plan = r#"{"rules": [{"methods": ["POST"], "paths": ["/auth/v1/token"],
        "fault": {"kind": "latency", "ms": 1000}}]}"#;
    let (result, stats) = with_faults(plan, client.auth().sign_in_with_password(credentials)).await;
    let result = result.expect("resolves with { data, error }");
    let error = get(&result, "error");
    assert!(error.is_instance_of::<js_sys::Error>(), "{}", json(&result));
    assert_eq!(string(&error, "name"), "AuthRetryableFetchError");
    assert_eq!(string(&error, "code"), "timeout");
    assert_eq!(get(&error, "status").as_f64(), Some(0.0));
    assert_eq!(get(&error, "retryable").as_bool(), Some(true));
    assert_eq!(string(&error, "message"), "request timed out after 200 ms");
    // auth-js retries only the session refresh: a sign-in is sent once.
    assert_eq!(stats[0].matched, 1);
    assert!(get(&result, "data.user").is_null());
    client.dispose();
}
