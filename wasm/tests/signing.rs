//! `signLogbook` under the emulator's faults: the insert is sent once, never again; an ambiguous
//! outcome (5xx, dropped connection, timeout) is settled by looking for the entry after the
//! watermark read first; the rejection says whether the entry was stored (`outcome`).
#![cfg(target_arch = "wasm32")]

mod faults;

use faults::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The watermark, the insert and (when ambiguous) the verification, in the order sent: method
/// and query string.
fn sequence(fetches: &Fetches) -> Vec<(String, String)> {
    fetches
        .all()
        .into_iter()
        .filter(|fetch| fetch.path == LOGS)
        .map(|fetch| (fetch.method, fetch.query))
        .collect()
}

#[wasm_bindgen_test]
async fn a_plain_signing_reads_the_watermark_then_inserts_once() {
    let client = client(5_000);
    let name = unique("plain");
    let fetches = record_fetches();
    client
        .sign_logbook(new_entry(&name, "m"))
        .await
        .expect("signed");
    assert_eq!(
        sequence(&fetches),
        [
            ("GET".into(), "?select=id&order=id.desc&limit=1".into()),
            ("POST".into(), String::new()),
        ]
    );
    assert_eq!(rows_named(&name).await, 1);
}

#[wasm_bindgen_test]
async fn an_insert_answered_503_after_it_committed_resolves_with_one_row() {
    let client = client(5_000);
    let name = unique("applied-503");
    let fetches = record_fetches();
    let plan = r#"{"rules": [{"methods": ["POST"], "paths": ["/rest/v1/geocache_logs"],
        "apply": true, "fault": {"kind": "status", "status": 503}}]}"#;
    let (signed, stats) = with_faults(plan, client.sign_logbook(new_entry(&name, "m"))).await;
    signed.expect("found after the watermark: stored");
    assert_eq!(stats[0].fired, 1);
    let calls = sequence(&fetches);
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(calls[1].0, "POST");
    let (method, query) = &calls[2];
    assert_eq!(method, "GET");
    assert!(
        query.starts_with("?select=id%2Cname%2Cmessage&id=gt.") && query.ends_with("&order=id.asc"),
        "{query}"
    );
    assert_eq!(rows_named(&name).await, 1, "stored exactly once");
}

#[wasm_bindgen_test]
async fn an_insert_refused_with_503_before_it_committed_rejects_not_stored() {
    let client = client(5_000);
    let name = unique("refused-503");
    let fetches = record_fetches();
    let plan = r#"{"rules": [{"methods": ["POST"], "paths": ["/rest/v1/geocache_logs"],
        "apply": false, "fault": {"kind": "status", "status": 503}}]}"#;
    let (signed, _) = with_faults(plan, client.sign_logbook(new_entry(&name, "m"))).await;
    let error = js_error(signed.expect_err("not stored"), "LogbookError", "PGRST001");
    assert_eq!(string(&error, "outcome"), "not_stored");
    assert_eq!(get(&error, "status").as_f64(), Some(503.0));
    assert_eq!(fetches.to("POST", LOGS).len(), 1, "never sent twice");
    assert_eq!(rows_named(&name).await, 0);
}

#[wasm_bindgen_test]
async fn an_insert_cut_off_mid_response_resolves_with_one_row() {
    let client = client(5_000);
    let name = unique("cut-off");
    let fetches = record_fetches();
    let plan = r#"{"rules": [{"methods": ["POST"], "paths": ["/rest/v1/geocache_logs"],
        "fault": {"kind": "drop_mid_response"}}]}"#;
    let (signed, stats) = with_faults(plan, client.sign_logbook(new_entry(&name, "m"))).await;
    signed.expect("found after the watermark: stored");
    assert_eq!(stats[0].fired, 1);
    assert_eq!(fetches.to("POST", LOGS).len(), 1, "never sent twice");
    assert_eq!(rows_named(&name).await, 1, "stored exactly once");
}

#[wasm_bindgen_test]
async fn an_identical_entry_signed_before_the_watermark_does_not_count() {
    let client = client(5_000);
    let name = unique("signed-before");
    client
        .sign_logbook(new_entry(&name, "same"))
        .await
        .expect("signed");
    let plan = r#"{"rules": [{"methods": ["POST"], "paths": ["/rest/v1/geocache_logs"],
        "fault": {"kind": "drop_before_response"}}]}"#;
    let (signed, _) = with_faults(plan, client.sign_logbook(new_entry(&name, "same"))).await;
    let error = js_error(
        signed.expect_err("not stored"),
        "LogbookError",
        "network_error",
    );
    assert_eq!(string(&error, "outcome"), "not_stored");
    assert_eq!(rows_named(&name).await, 1);
}

#[wasm_bindgen_test]
async fn a_refusal_is_final_and_not_looked_into() {
    let client = client(5_000);
    let name = unique("nul\u{0}");
    let fetches = record_fetches();
    // PostgreSQL's text cannot hold U+0000: 400, 22P05.
    let error = client
        .sign_logbook(new_entry(&name, "m"))
        .await
        .expect_err("refused");
    let error = js_error(error, "LogbookError", "22P05");
    assert_eq!(get(&error, "status").as_f64(), Some(400.0));
    assert_eq!(string(&error, "outcome"), "not_stored");
    assert_eq!(
        sequence(&fetches)
            .iter()
            .map(|(method, _)| method.as_str())
            .collect::<Vec<_>>(),
        ["GET", "POST"],
        "the watermark and the insert, no verification"
    );
}

#[wasm_bindgen_test]
async fn a_failed_watermark_read_sends_no_insert() {
    let client = client(5_000);
    let name = unique("no-watermark");
    let fetches = record_fetches();
    // A 200 whose body is not JSON is not retried: the call fails at once.
    let plan = r#"{"rules": [{"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"],
        "fault": {"kind": "non_json_body"}}]}"#;
    let (signed, _) = with_faults(plan, client.sign_logbook(new_entry(&name, "m"))).await;
    let error = js_error(signed.expect_err("refused"), "LogbookError", "invalid_json");
    assert_eq!(string(&error, "outcome"), "not_stored");
    assert!(fetches.to("POST", LOGS).is_empty(), "no insert");
    assert_eq!(rows_named(&name).await, 0);
}

#[wasm_bindgen_test]
async fn a_failed_verification_leaves_the_outcome_unknown() {
    let client = client(5_000);
    let name = unique("unverified");
    // The insert commits but its answer is cut off, and the verification (the second GET)
    // reads a body that is not JSON.
    let plan = r#"{"rules": [
        {"methods": ["POST"], "paths": ["/rest/v1/geocache_logs"],
         "fault": {"kind": "drop_mid_response"}},
        {"methods": ["GET"], "paths": ["/rest/v1/geocache_logs"], "every": 2,
         "fault": {"kind": "non_json_body"}}]}"#;
    let (signed, stats) = with_faults(plan, client.sign_logbook(new_entry(&name, "m"))).await;
    let error = js_error(
        signed.expect_err("unknown"),
        "LogbookError",
        "network_error",
    );
    assert_eq!(string(&error, "outcome"), "unknown");
    assert_eq!(get(&error, "retryable").as_bool(), Some(true));
    assert_eq!((stats[0].fired, stats[1].fired), (1, 1));
    assert_eq!(rows_named(&name).await, 1, "it was stored after all");
}

#[wasm_bindgen_test]
async fn an_insert_that_times_out_is_not_sent_again() {
    let client = client(300);
    let name = unique("slow-insert");
    let fetches = record_fetches();
    let plan = r#"{"rules": [{"methods": ["POST"], "paths": ["/rest/v1/geocache_logs"],
        "fault": {"kind": "latency", "ms": 1500}}]}"#;
    let started = js_sys::Date::now();
    let (signed, stats) = with_faults(plan, async {
        let signed = client.sign_logbook(new_entry(&name, "m")).await;
        // Long enough for a resend, had there been one, to reach the emulator.
        sleep(1_800).await;
        signed
    })
    .await;
    let error = js_error(signed.expect_err("timed out"), "LogbookError", "timeout");
    assert_eq!(string(&error, "message"), "request timed out after 300 ms");
    assert_eq!(get(&error, "status").as_f64(), Some(0.0));
    // The verification read ran while the insert was still held back, so it was not there yet.
    assert_eq!(string(&error, "outcome"), "not_stored");
    assert!(js_sys::Date::now() - started < 15_000.0);
    assert_eq!(fetches.to("POST", LOGS).len(), 1);
    assert_eq!(stats[0].matched, 1, "the emulator saw one insert");
    // The known limit: the server may still commit the aborted insert; never twice, though.
    assert!(rows_named(&name).await <= 1);
}
