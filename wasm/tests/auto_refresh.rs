//! Auto-refresh in headless Chromium: the ticker follows page visibility, a session close to
//! expiry is refreshed by a tick, a failing tick logs and the next recovers, `dispose()` and drop
//! leave no timer or listener behind, and concurrent refreshes share one request.
//!
//! Ticks are shortened with the test-only `autoRefreshTickMs` option; "close to expiry" is made
//! by moving the stored `expires_at` (what the client acts on), so the tests do not depend on the
//! emulator's --jwt-expiry. `document.visibilityState` is overridden and `visibilitychange`
//! dispatched by hand.
#![cfg(all(target_arch = "wasm32", feature = "auth"))]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod support;

use futures_util::future::join3;
use geocache_client::auth::TICK_FAILED_MESSAGE;
use geocache_client::Client;
use support::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const REFRESH: &str = "grant_type=refresh_token";

fn refreshes(fetches: &JsValue) -> f64 {
    call(fetches, "count", &[REFRESH.into()])
        .as_f64()
        .expect("a count")
}

fn ticking_client(key: &str, tick_ms: u32) -> Client {
    client_with(key, &[("autoRefreshTickMs", tick_ms.into())])
}

/// (listening for visibility, ticking)
fn state(client: &Client) -> (bool, bool) {
    client.auth().client().auto_refresh_state()
}

fn count(recorder: &JsValue, event: &str) -> usize {
    event_names(recorder)
        .iter()
        .filter(|name| *name == event)
        .count()
}

/// Subscribes and waits for INITIAL_SESSION, whose session read could otherwise refresh a
/// session the test is about to make due.
async fn settled_subscriber(client: &Client) -> JsValue {
    let events = subscribe(client);
    wait_until("INITIAL_SESSION", 2000, || {
        count(&events, "INITIAL_SESSION") == 1
    })
    .await;
    events
}

fn intervals(tracker: &JsValue) -> f64 {
    call(tracker, "intervals", &[]).as_f64().unwrap()
}

fn listeners(tracker: &JsValue) -> f64 {
    call(tracker, "listeners", &[]).as_f64().unwrap()
}

#[wasm_bindgen_test]
async fn visible_starts_the_ticker_and_hidden_stops_it() {
    set_visibility("visible");
    let tracker = track_timers_and_listeners();
    let key = unique("sb-test-");
    let client = ticking_client(&key, 2000);
    wait_until("the ticker", 2000, || state(&client) == (true, true)).await;
    assert_eq!((intervals(&tracker), listeners(&tracker)), (1.0, 1.0));
    sign_up(&client).await;
    let events = settled_subscriber(&client).await;
    let fetches = record_fetches();

    set_visibility("hidden");
    assert_eq!(state(&client), (true, false));
    assert_eq!(intervals(&tracker), 0.0);
    // Due (5 s left < 3 ticks of 2 s), but hidden: more than a tick passes without a refresh.
    expire_stored_session_in(&key, 5.0);
    sleep(2500).await;
    assert_eq!(refreshes(&fetches), 0.0);

    set_visibility("visible");
    assert_eq!(state(&client), (true, true));
    assert_eq!(intervals(&tracker), 1.0);
    // Within one tick: the immediate tick (and the recovery) refreshed, sharing a request.
    wait_until("TOKEN_REFRESHED", 1900, || {
        count(&events, "TOKEN_REFRESHED") == 1
    })
    .await;
    sleep(300).await;
    assert_eq!(refreshes(&fetches), 1.0);
    assert_eq!(count(&events, "TOKEN_REFRESHED"), 1);

    call(&fetches, "restore", &[]);
    client.dispose();
    call(&tracker, "restore", &[]);
    reset_visibility();
}

#[wasm_bindgen_test]
async fn a_session_close_to_expiry_is_refreshed_by_a_tick() {
    set_visibility("visible");
    let key = unique("sb-test-");
    let client = ticking_client(&key, 300);
    let (_, data) = sign_up(&client).await;
    let events = settled_subscriber(&client).await;
    let fetches = record_fetches();

    // Not due: an hour left. Several ticks pass without a refresh.
    sleep(1000).await;
    assert_eq!(refreshes(&fetches), 0.0);

    // Due: under 4 ticks (1.2 s) left.
    expire_stored_session_in(&key, 1.0);
    wait_until("TOKEN_REFRESHED", 2000, || {
        count(&events, "TOKEN_REFRESHED") == 1
    })
    .await;
    assert_eq!(refreshes(&fetches), 1.0);
    let stored = stored(&key).unwrap();
    assert_ne!(
        string(&stored, "refresh_token"),
        string(&data, "session.refresh_token")
    );
    assert!(number(&stored, "expires_at") > js_sys::Date::now() / 1000.0 + 60.0);
    // The refreshed session works.
    support::data(client.auth().get_user(None).await);

    call(&fetches, "restore", &[]);
    client.dispose();
    reset_visibility();
}

#[wasm_bindgen_test]
async fn a_failing_tick_logs_the_transient_message_and_the_next_recovers() {
    set_visibility("visible");
    let key = unique("sb-test-");
    // 500 ms ticks: the failure is cached for 2 ticks, ample time to bring the network back
    // before the next attempt.
    let client = ticking_client(&key, 500);
    sign_up(&client).await;
    let events = settled_subscriber(&client).await;
    let fetches = record_fetches();
    let console = record_console_errors();
    call(&fetches, "failMatching", &[REFRESH.into()]);

    expire_stored_session_in(&key, 1.0);
    let logged = || {
        array(get(&console, "calls"))
            .into_iter()
            .filter(|args| get(args, "0").as_string().as_deref() == Some(TICK_FAILED_MESSAGE))
            .collect::<Vec<_>>()
    };
    wait_until("the tick failure log", 3000, || !logged().is_empty()).await;
    call(&fetches, "failMatching", &[JsValue::NULL]);
    let error = get(&logged()[0], "1");
    assert!(error.is_instance_of::<js_sys::Error>());
    assert_eq!(string(&error, "name"), "AuthRetryableFetchError");
    assert_eq!(number(&error, "status"), 0.0);
    assert_eq!(get(&error, "retryable").as_bool(), Some(true));
    // A network failure never signs the user out.
    assert!(stored(&key).is_some());

    wait_until("the next tick's TOKEN_REFRESHED", 3000, || {
        count(&events, "TOKEN_REFRESHED") == 1
    })
    .await;
    assert_eq!(logged().len(), 1);
    assert_eq!(count(&events, "SIGNED_OUT"), 0);

    call(&console, "restore", &[]);
    call(&fetches, "restore", &[]);
    client.dispose();
    reset_visibility();
}

#[wasm_bindgen_test]
async fn dispose_and_drop_leave_no_timer_or_listener_behind() {
    set_visibility("visible");
    let tracker = track_timers_and_listeners();
    let client = ticking_client(&unique("sb-test-"), 200);
    wait_until("the ticker", 2000, || state(&client) == (true, true)).await;
    assert_eq!((intervals(&tracker), listeners(&tracker)), (1.0, 1.0));
    sign_up(&client).await;
    let events = settled_subscriber(&client).await;
    wait_until("INITIAL_SESSION", 2000, || {
        count(&events, "INITIAL_SESSION") == 1
    })
    .await;

    client.dispose();
    assert_eq!(state(&client), (false, false));
    assert_eq!(call(&tracker, "timers", &[]).as_f64(), Some(0.0));
    assert_eq!(listeners(&tracker), 0.0);
    client.dispose();
    let promise = client.auth().dispose();
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
    assert_eq!(state(&client), (false, false));
    // Nothing listens any more, and nobody is told.
    set_visibility("hidden");
    set_visibility("visible");
    assert_eq!(intervals(&tracker), 0.0);
    support::data(client.auth().refresh_session(JsValue::UNDEFINED).await);
    sleep(100).await;
    assert_eq!(count(&events, "TOKEN_REFRESHED"), 0);

    // Dropping a client (JS: garbage collection with --weak-refs, or free()) does the same.
    let other = ticking_client(&unique("sb-test-"), 200);
    wait_until("the other ticker", 2000, || state(&other) == (true, true)).await;
    assert_eq!((intervals(&tracker), listeners(&tracker)), (1.0, 1.0));
    drop(other);
    wait_until("no timers", 1000, || {
        intervals(&tracker) == 0.0 && listeners(&tracker) == 0.0
    })
    .await;

    call(&tracker, "restore", &[]);
    reset_visibility();
}

#[wasm_bindgen_test]
async fn concurrent_refreshes_send_one_request() {
    let key = unique("sb-test-");
    let client = client(&key);
    sign_up(&client).await;
    let events = settled_subscriber(&client).await;
    let fetches = record_fetches();
    let refresh_token = string(&stored(&key).unwrap(), "refresh_token");
    let token = || object(&[("refresh_token", refresh_token.as_str().into())]);
    let auth = client.auth();
    let (first, second, third) = join3(
        auth.refresh_session(token()),
        auth.refresh_session(token()),
        auth.refresh_session(JsValue::UNDEFINED),
    )
    .await;
    let tokens: Vec<String> = [first, second, third]
        .into_iter()
        .map(|result| string(&support::data(result), "session.refresh_token"))
        .collect();
    assert_ne!(tokens[0], refresh_token);
    assert!(tokens.iter().all(|token| *token == tokens[0]), "{tokens:?}");
    assert_eq!(refreshes(&fetches), 1.0);
    assert_eq!(string(&stored(&key).unwrap(), "refresh_token"), tokens[0]);
    sleep(200).await;
    assert_eq!(count(&events, "TOKEN_REFRESHED"), 1);
    call(&fetches, "restore", &[]);
}

#[wasm_bindgen_test]
async fn explicit_start_and_stop_take_over_from_visibility() {
    set_visibility("visible");
    let tracker = track_timers_and_listeners();
    let client = ticking_client(&unique("sb-test-"), 200);
    wait_until("the ticker", 2000, || state(&client) == (true, true)).await;

    let _ = client.auth().stop_auto_refresh();
    assert_eq!(state(&client), (false, false));
    assert_eq!((intervals(&tracker), listeners(&tracker)), (0.0, 0.0));
    set_visibility("hidden");
    set_visibility("visible");
    assert_eq!(intervals(&tracker), 0.0);

    let _ = client.auth().start_auto_refresh();
    assert_eq!(state(&client), (false, true));
    assert_eq!(intervals(&tracker), 1.0);
    set_visibility("hidden");
    assert_eq!(state(&client), (false, true));
    assert_eq!(intervals(&tracker), 1.0);

    client.dispose();
    assert_eq!(intervals(&tracker), 0.0);
    call(&tracker, "restore", &[]);
    reset_visibility();
}

#[wasm_bindgen_test]
async fn without_auto_refresh_visibility_only_recovers_the_session() {
    set_visibility("visible");
    let tracker = track_timers_and_listeners();
    let key = unique("sb-test-");
    let client = client_with(&key, &[("autoRefreshToken", false.into())]);
    wait_until("the listener", 2000, || state(&client) == (true, false)).await;
    sign_up(&client).await;
    let events = settled_subscriber(&client).await;
    set_visibility("hidden");
    set_visibility("visible");
    assert_eq!(intervals(&tracker), 0.0);
    // Becoming visible announces the recovered (not expiring) session.
    wait_until("SIGNED_IN from recovery", 2000, || {
        count(&events, "SIGNED_IN") == 1
    })
    .await;
    client.dispose();
    call(&tracker, "restore", &[]);
    reset_visibility();
}
