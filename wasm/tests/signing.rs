//! `signLogbook` under the emulator's faults: each sign carries an `Idempotency-Key` and is
//! resent with it after a lost answer, a timeout or a gateway failure, so whatever goes wrong
//! and whether or not the first attempt was applied, the entry is stored exactly once. Refusals
//! and 500s are final; a rejection says whether the entry may be stored (`outcome`) and carries
//! the key to sign again with.
#![cfg(all(target_arch = "wasm32", feature = "rest"))]

mod faults;

use faults::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const KEY: &str = "6f1c2d3e-4b5a-4c6d-8e7f-";

/// The inserts sent, in order: their `X-Retry-Count` and `Idempotency-Key`.
fn inserts(fetches: &Fetches) -> Vec<(Option<String>, String)> {
    fetches
        .to("POST", LOGS)
        .into_iter()
        .map(|fetch| (fetch.retry_count, fetch.idempotency_key.expect("a key")))
        .collect()
}

/// One key on every insert, the first without a retry count and resend n with `n`.
#[track_caller]
fn assert_resent_with_one_key(inserts: &[(Option<String>, String)], count: usize) {
    assert_eq!(inserts.len(), count, "{inserts:?}");
    let key = &inserts[0].1;
    assert_eq!(key.len(), 36, "{key}");
    for (index, (retry_count, sent)) in inserts.iter().enumerate() {
        assert_eq!(sent, key);
        let expected = (index > 0).then(|| index.to_string());
        assert_eq!(retry_count, &expected);
    }
}

fn with_key(key: &str) -> JsValue {
    object(&[("idempotencyKey", key.into())])
}

/// A key no other test (or earlier run against the same emulator) uses.
fn fresh_key() -> String {
    let digits = format!("{:012x}", (js_sys::Math::random() * 2f64.powi(48)) as u64);
    format!("{KEY}{digits}")
}

#[wasm_bindgen_test]
async fn a_plain_sign_is_one_insert_with_a_random_key() {
    let client = client(5_000);
    let name = unique("plain");
    let fetches = record_fetches();
    for _ in 0..2 {
        let stored = client
            .sign_logbook(new_entry(&name, "m"), JsValue::UNDEFINED)
            .await
            .expect("signed");
        // The entry as stored, so the page can show it before its reload.
        assert_eq!(string(&stored, "name"), name);
        assert_eq!(string(&stored, "message"), "m");
        assert!(get(&stored, "id").as_f64().is_some_and(|id| id > 0.0));
        assert!(string(&stored, "created_at").contains('T'));
    }
    let sent = inserts(&fetches);
    assert_eq!(fetches.all().len(), 2, "no read before or after");
    assert_resent_with_one_key(&sent[..1], 1);
    assert_ne!(sent[0].1, sent[1].1, "each sign has its own key");
    assert_eq!(rows_named(&name).await, 2);
}

/// Signs with `rule` firing on the first `limit` inserts (fewer than the client's four attempts),
/// expecting the sign to resolve with the entry stored once; returns the inserts the client sent.
async fn stored_once_after(label: &str, rule: &str, limit: u32) -> Vec<(Option<String>, String)> {
    let client = client(5_000);
    let name = unique(label);
    let fetches = record_fetches();
    let plan = format!(
        r#"{{"rules": [{{"methods": ["POST"], "paths": ["/rest/v1/geocache_logs"], "limit": {limit}, {rule}}}]}}"#
    );
    let (signed, stats) = with_faults(
        &plan,
        client.sign_logbook(new_entry(&name, "m"), JsValue::UNDEFINED),
    )
    .await;
    signed.unwrap_or_else(|error| panic!("{label}: {:?}", JsValue::from(error)));
    assert_eq!(stats[0].fired, limit, "{label}");
    assert_eq!(rows_named(&name).await, 1, "{label}: stored exactly once");
    inserts(&fetches)
}

#[wasm_bindgen_test]
async fn a_503_after_the_write_was_applied_is_resent_and_stored_once() {
    let sent = stored_once_after(
        "applied-503",
        r#""apply": true, "fault": {"kind": "status", "status": 503}"#,
        1,
    )
    .await;
    assert_resent_with_one_key(&sent, 2);
}

#[wasm_bindgen_test]
async fn a_503_before_the_write_is_resent_and_stored_once() {
    let sent = stored_once_after(
        "refused-503",
        r#""apply": false, "fault": {"kind": "status", "status": 503}"#,
        1,
    )
    .await;
    assert_resent_with_one_key(&sent, 2);
}

/// Chromium itself sends a request again, headers and all, when its reused keep-alive
/// connection closes before any byte of the answer, so some drops never reach the client: three
/// drops are one to four attempts of the client's, every one with the sign's key.
async fn stored_once_after_drops(label: &str, apply: bool) {
    let rule = format!(r#""apply": {apply}, "fault": {{"kind": "drop_before_response"}}"#);
    let sent = stored_once_after(label, &rule, 3).await;
    assert!((1..=4).contains(&sent.len()), "{label}: {sent:?}");
    assert_resent_with_one_key(&sent, sent.len());
}

#[wasm_bindgen_test]
async fn inserts_dropped_after_the_first_was_applied_are_stored_once() {
    stored_once_after_drops("dropped-applied", true).await;
}

#[wasm_bindgen_test]
async fn inserts_dropped_before_they_were_applied_are_stored_once() {
    stored_once_after_drops("dropped-unapplied", false).await;
}

#[wasm_bindgen_test]
async fn an_insert_cut_off_mid_response_is_stored_once() {
    // A cut answer has bytes on the wire: Chromium does not send it again, the client does.
    let sent = stored_once_after("cut-off", r#""fault": {"kind": "drop_mid_response"}"#, 1).await;
    assert_resent_with_one_key(&sent, 2);
}

#[wasm_bindgen_test]
async fn an_insert_that_times_out_is_resent_and_stored_once() {
    let client = client(300);
    let name = unique("slow-insert");
    let fetches = record_fetches();
    let plan = r#"{"rules": [{"methods": ["POST"], "paths": ["/rest/v1/geocache_logs"],
        "limit": 1, "fault": {"kind": "latency", "ms": 1500}}]}"#;
    let (signed, stats) = with_faults(plan, async {
        let signed = client
            .sign_logbook(new_entry(&name, "m"), JsValue::UNDEFINED)
            .await;
        // Long enough for the held-back first attempt to reach the table too.
        sleep(1_800).await;
        signed
    })
    .await;
    signed.expect("the resend was answered");
    assert_eq!(stats[0].fired, 1);
    assert_resent_with_one_key(&inserts(&fetches), 2);
    assert_eq!(
        rows_named(&name).await,
        1,
        "both attempts arrived, one stored"
    );
}

#[wasm_bindgen_test]
async fn every_attempt_failing_rejects_unknown_with_the_key_to_sign_again() {
    let client = client(5_000);
    let name = unique("always-503");
    let fetches = record_fetches();
    let plan = r#"{"rules": [{"methods": ["POST"], "paths": ["/rest/v1/geocache_logs"],
        "apply": true, "fault": {"kind": "status", "status": 503}}]}"#;
    let (signed, stats) = with_faults(
        plan,
        client.sign_logbook(new_entry(&name, "m"), JsValue::UNDEFINED),
    )
    .await;
    let error = js_error(
        signed.expect_err("every answer lost"),
        "LogbookError",
        "PGRST001",
    );
    assert_eq!(string(&error, "outcome"), "unknown");
    assert_eq!(get(&error, "status").as_f64(), Some(503.0));
    assert_eq!(stats[0].fired, 4, "the insert and three resends");
    let sent = inserts(&fetches);
    assert_resent_with_one_key(&sent, 4);
    assert_eq!(string(&error, "idempotencyKey"), sent[0].1);
    assert_eq!(
        rows_named(&name).await,
        1,
        "applied four times, stored once"
    );
    // Signing again with the key resolves and still stores nothing more: no row comes back.
    let again = client
        .sign_logbook(new_entry(&name, "m"), with_key(&sent[0].1))
        .await
        .expect("already stored: a success");
    assert!(again.is_undefined(), "a resend's answer holds no row");
    assert_eq!(
        inserts(&fetches)
            .last()
            .expect("at least one insert was sent")
            .1,
        sent[0].1
    );
    assert_eq!(rows_named(&name).await, 1);
}

#[wasm_bindgen_test]
async fn a_refusal_is_final_and_not_stored() {
    let client = client(5_000);
    let name = unique("nul\u{0}");
    let fetches = record_fetches();
    // PostgreSQL's text cannot hold U+0000: 400, 22P05.
    let error = client
        .sign_logbook(new_entry(&name, "m"), JsValue::UNDEFINED)
        .await
        .expect_err("refused");
    let error = js_error(error, "LogbookError", "22P05");
    assert_eq!(get(&error, "status").as_f64(), Some(400.0));
    assert_eq!(string(&error, "outcome"), "not_stored");
    let sent = inserts(&fetches);
    assert_resent_with_one_key(&sent, 1);
    assert_eq!(string(&error, "idempotencyKey"), sent[0].1);
}

#[wasm_bindgen_test]
async fn a_500_is_final_and_leaves_the_outcome_open() {
    let client = client(5_000);
    let name = unique("final-500");
    let fetches = record_fetches();
    let plan = r#"{"rules": [{"methods": ["POST"], "paths": ["/rest/v1/geocache_logs"],
        "apply": false, "fault": {"kind": "status", "status": 500}}]}"#;
    let (signed, _) = with_faults(
        plan,
        client.sign_logbook(new_entry(&name, "m"), JsValue::UNDEFINED),
    )
    .await;
    let error = signed.expect_err("final");
    let error = JsValue::from(error);
    assert_eq!(get(&error, "status").as_f64(), Some(500.0));
    assert_eq!(string(&error, "outcome"), "unknown");
    assert_resent_with_one_key(&inserts(&fetches), 1);
    assert_eq!(rows_named(&name).await, 0);
}

#[wasm_bindgen_test]
async fn a_given_key_is_sent_and_stores_its_sign_once() {
    let client = client(5_000);
    let name = unique("given-key");
    let key = fresh_key();
    let fetches = record_fetches();
    for given in [key.clone(), key.to_uppercase()] {
        client
            .sign_logbook(new_entry(&name, "m"), with_key(&given))
            .await
            .expect("signed");
    }
    let sent = inserts(&fetches);
    assert_eq!(sent.len(), 2);
    assert!(sent.iter().all(|(_, sent)| *sent == key), "{sent:?}");
    assert_eq!(rows_named(&name).await, 1);
}

#[wasm_bindgen_test]
async fn a_malformed_key_is_refused_before_anything_is_sent() {
    let client = client(5_000);
    let fetches = record_fetches();
    for options in [
        with_key("not-a-uuid"),
        with_key("{6f1c2d3e-4b5a-4c6d-8e7f-000000000000}"),
        object(&[("idempotencyKey", 7.into())]),
        JsValue::from("6f1c2d3e-4b5a-4c6d-8e7f-000000000000"),
    ] {
        let error = client
            .sign_logbook(new_entry("n", "m"), options)
            .await
            .expect_err("refused");
        let value = JsValue::from(error);
        assert!(value.is_instance_of::<js_sys::TypeError>(), "{value:?}");
        assert_eq!(string(&value, "code"), "invalid_argument");
        assert!(string(&value, "message").starts_with("invalid options: "));
    }
    assert!(fetches.all().is_empty());
}
