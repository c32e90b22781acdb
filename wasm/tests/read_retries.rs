//! Reads under the emulator's faults: sent again as postgrest-js does (503 and 520 answers,
//! dropped connections; 1 s, 2 s, 4 s; `X-Retry-Count`), and not after other answers. The
//! back-off is real time, so only one test exhausts the retries.
#![cfg(all(target_arch = "wasm32", feature = "rest"))]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod faults;

use faults::*;
use geocache_client::transport::Transport;
use geocache_core::logbook::outcome::expect_success;
use geocache_core::rest::Postgrest;
use geocache_core::ClientConfig;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const GET_LOGS_503_ONCE: &str = r#"{"rules": [{"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"],
    "limit": 1, "fault": {"kind": "status", "status": 503}}]}"#;

#[wasm_bindgen_test]
async fn a_503_then_success_is_retried_with_x_retry_count() {
    let client = client(5_000);
    let fetches = record_fetches();
    let started = js_sys::Date::now();
    let (list, stats) =
        with_faults(GET_LOGS_503_ONCE, client.list_entries(JsValue::UNDEFINED)).await;
    let waited = js_sys::Date::now() - started;
    list.expect("the retry succeeds");
    let retry_counts = fetches.retry_counts("GET", LOGS);
    assert_first_page_retried_once(&retry_counts);
    // The emulator saw them all: the first faulted, the retry and the later pages answered.
    assert_eq!(
        stats,
        [RuleStats {
            matched: retry_counts.len() as u32,
            fired: 1
        }]
    );
    assert!(waited >= 1_000.0, "backed off 1 s, waited {waited} ms");
}

#[wasm_bindgen_test]
async fn a_520_is_retried_too_and_so_is_the_first_screen() {
    let client = client(5_000);
    let fetches = record_fetches();
    let plan = r#"{"rules": [{"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"],
        "limit": 1, "fault": {"kind": "status", "status": 520, "body": "plain"}}]}"#;
    let (list, _) = with_faults(plan, client.list_newest_entries(5)).await;
    list.expect("the retry succeeds");
    assert_eq!(
        fetches.retry_counts("GET", LOGS),
        [None, Some("1".to_owned())]
    );
}

#[wasm_bindgen_test]
async fn a_connection_lost_mid_body_is_retried() {
    // Cut after the headers: Chromium itself silently resends a request whose reused connection
    // closed before any byte of the answer, so only a later cut reaches the client.
    let client = client(5_000);
    let fetches = record_fetches();
    let plan = r#"{"rules": [{"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"],
        "limit": 1, "fault": {"kind": "drop_mid_response"}}]}"#;
    let (list, stats) = with_faults(plan, client.list_entries(JsValue::UNDEFINED)).await;
    list.expect("the retry succeeds");
    assert_first_page_retried_once(&fetches.retry_counts("GET", LOGS));
    assert_eq!(stats[0].fired, 1);
}

#[wasm_bindgen_test]
async fn other_4xx_and_5xx_answers_are_not_retried() {
    let emulator = emulator();
    let config = ClientConfig::new(emulator.url, emulator.anon_key).unwrap();
    let postgrest = Postgrest::new(&config, None);
    let fetches = record_fetches();
    let transport = Transport::default();

    // 404: PGRST205, the table is unknown.
    let request = postgrest.from("no_such_table").select("*").build();
    let error = expect_success(transport.send_read(&request).await).expect_err("refused");
    assert_eq!((error.code(), error.status()), ("PGRST205", 404));
    assert_eq!(fetches.to("GET", "/rest/v1/no_such_table").len(), 1);

    // 400: PGRST100, a filter that does not parse.
    let request = postgrest
        .from("geocache_logs")
        .select("*")
        .eq("id", "x")
        .build();
    let error = expect_success(transport.send_read(&request).await).expect_err("refused");
    assert_eq!(error.status(), 400, "{error}");
    assert_eq!(fetches.to("GET", LOGS).len(), 1);

    // 500 and 502 are not among postgrest-js's retryable statuses.
    let client = client(5_000);
    for status in [500, 502] {
        let plan = format!(
            r#"{{"rules": [{{"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"],
                "fault": {{"kind": "status", "status": {status}}}}}]}}"#
        );
        let (list, stats) = with_faults(&plan, client.list_entries(JsValue::UNDEFINED)).await;
        let error = list.expect_err("faulted");
        js_error(error, "LogbookError", "XX000");
        assert_eq!(stats[0].matched, 1, "{status}: sent once");
    }
}

#[wasm_bindgen_test]
async fn a_read_that_keeps_failing_rejects_after_three_retries() {
    let client = client(5_000);
    let fetches = record_fetches();
    let plan = r#"{"rules": [{"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"],
        "fault": {"kind": "status", "status": 503}}]}"#;
    let started = js_sys::Date::now();
    let (list, stats) = with_faults(plan, client.list_entries(JsValue::UNDEFINED)).await;
    let waited = js_sys::Date::now() - started;
    let error = js_error(list.expect_err("gave up"), "LogbookError", "PGRST001");
    assert_eq!(get(&error, "status").as_f64(), Some(503.0));
    assert_eq!(get(&error, "retryable").as_bool(), Some(true));
    assert_eq!(get(&error, "page").as_f64(), Some(1.0));
    assert!(string(&error, "message").starts_with("page 1: "));
    assert_eq!(
        fetches.retry_counts("GET", LOGS),
        [None, Some("1".into()), Some("2".into()), Some("3".into())]
    );
    assert_eq!(
        stats,
        [RuleStats {
            matched: 4,
            fired: 4
        }]
    );
    // 1 s + 2 s + 4 s of back-off.
    assert!(waited >= 7_000.0, "waited {waited} ms");
}
