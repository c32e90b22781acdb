//! `client.auth` in headless Chromium against the emulator's auth server: sign-up, sign-in,
//! refresh, user, setSession, sign-out, events, persistence and the logbook's bearer.
//!
//! `EMULATOR_URL=… EMULATOR_ANON_KEY=… EMULATOR_SERVICE_ROLE_KEY=… WASM_BINDGEN_TEST_TIMEOUT=60 wasm-pack test --headless --chrome wasm`
#![cfg(all(target_arch = "wasm32", feature = "auth"))]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod support;

use geocache_client::{create_client, ClientError};
use geocache_core::ClientConfig;
use js_sys::Reflect;
use support::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn no_user_no_session(result: &JsValue) {
    assert!(get(result, "data.user").is_null() && get(result, "data.session").is_null());
}

#[wasm_bindgen_test]
async fn sign_up_signs_in_and_persists_the_session() {
    let key = unique("sb-test-");
    let client = client(&key);
    let events = subscribe(&client);
    let (email, data) = sign_up(&client).await;

    assert_eq!(string(&data, "user.email"), email);
    assert_eq!(string(&data, "session.user.email"), email);
    assert_eq!(string(&data, "session.token_type"), "bearer");
    let now_s = js_sys::Date::now() / 1000.0;
    let expires_at = number(&data, "session.expires_at");
    let expires_in = number(&data, "session.expires_in");
    assert!(expires_in > 0.0 && (expires_at - now_s - expires_in).abs() < 5.0);
    wait_until("SIGNED_IN", 2000, || {
        event_names(&events).contains(&"SIGNED_IN".to_owned())
    })
    .await;

    // Stored as supabase-js's JSON under the storage key.
    let stored = stored(&key).expect("the session is stored");
    for field in ["access_token", "refresh_token", "user.id"] {
        assert_eq!(
            string(&stored, field),
            string(&data, &format!("session.{field}"))
        );
    }
    assert_eq!(number(&stored, "expires_at"), expires_at);

    // A reload (a new client on the same storage) is still signed in, without a request.
    let reloaded = support::client(&key);
    let session = data_of(reloaded.auth().get_session().await);
    assert_eq!(
        string(&session, "session.access_token"),
        string(&data, "session.access_token")
    );
}

fn data_of(result: Result<JsValue, ClientError>) -> JsValue {
    support::data(result)
}

#[wasm_bindgen_test]
async fn the_default_storage_key_is_supabase_js_one() {
    let emulator = emulator();
    let expected = ClientConfig::new(emulator.url, emulator.anon_key)
        .unwrap()
        .storage_key()
        .to_owned();
    assert!(expected.starts_with("sb-") && expected.ends_with("-auth-token"));
    let client = create_client(
        Some(emulator.url.into()),
        Some(emulator.anon_key.into()),
        JsValue::UNDEFINED,
    )
    .unwrap();
    let (email, _) = sign_up(&client).await;
    assert_eq!(string(&stored(&expected).unwrap(), "user.email"), email);
    data_of(client.auth().sign_out(JsValue::UNDEFINED).await);
    assert!(stored(&expected).is_none());
}

#[wasm_bindgen_test]
async fn persist_session_false_keeps_the_session_in_memory() {
    let key = unique("sb-test-");
    let client = client_with(&key, &[("persistSession", false.into())]);
    let (_, data) = sign_up(&client).await;
    assert!(stored(&key).is_none());
    let session = data_of(client.auth().get_session().await);
    assert_eq!(
        string(&session, "session.access_token"),
        string(&data, "session.access_token")
    );
}

#[wasm_bindgen_test]
async fn sign_in_with_password_and_its_failures() {
    let (email, signed_up) = sign_up(&client(&unique("sb-test-"))).await;
    let key = unique("sb-test-");
    let client = client(&key);
    let data = data_of(
        client
            .auth()
            .sign_in_with_password(credentials(&email))
            .await,
    );
    assert_eq!(string(&data, "user.id"), string(&signed_up, "user.id"));
    assert_eq!(string(&data, "session.user.id"), string(&data, "user.id"));
    assert_ne!(
        string(&data, "session.access_token"),
        string(&signed_up, "session.access_token")
    );
    assert_eq!(
        string(&stored(&key).unwrap(), "access_token"),
        string(&data, "session.access_token")
    );

    let wrong = object(&[
        ("email", email.as_str().into()),
        ("password", "nope!!".into()),
    ]);
    let result = auth_error(
        client.auth().sign_in_with_password(wrong).await,
        "AuthApiError",
        Some("invalid_credentials"),
        Some(400),
    );
    assert_eq!(
        string(&result, "error.message"),
        "Invalid login credentials"
    );
    no_user_no_session(&result);

    let nobody = credentials(&unique_email());
    auth_error(
        client.auth().sign_in_with_password(nobody).await,
        "AuthApiError",
        Some("invalid_credentials"),
        Some(400),
    );
    let neither = object(&[("password", PASSWORD.into())]);
    let result = auth_error(
        client.auth().sign_in_with_password(neither).await,
        "AuthInvalidCredentialsError",
        None,
        Some(400),
    );
    no_user_no_session(&result);
}

#[wasm_bindgen_test]
async fn signing_up_twice_is_refused() {
    let client = client(&unique("sb-test-"));
    let (email, _) = sign_up(&client).await;
    let result = auth_error(
        client.auth().sign_up(credentials(&email)).await,
        "AuthApiError",
        Some("user_already_exists"),
        Some(422),
    );
    no_user_no_session(&result);
}

#[wasm_bindgen_test]
async fn refresh_rotates_the_tokens_and_refuses_the_old_refresh_token() {
    let key = unique("sb-test-");
    let client = client(&key);
    let (_, before) = sign_up(&client).await;
    let events = subscribe(&client);
    let after = data_of(client.auth().refresh_session(JsValue::UNDEFINED).await);
    let old_refresh = string(&before, "session.refresh_token");
    assert_ne!(string(&after, "session.refresh_token"), old_refresh);
    // (The access token may be byte-identical: same claims within the same second.)
    assert!(number(&after, "session.expires_at") >= number(&before, "session.expires_at"));
    assert_eq!(string(&after, "user.id"), string(&before, "user.id"));
    assert_eq!(
        string(&stored(&key).unwrap(), "refresh_token"),
        string(&after, "session.refresh_token")
    );
    wait_until("TOKEN_REFRESHED", 2000, || {
        event_names(&events).contains(&"TOKEN_REFRESHED".to_owned())
    })
    .await;

    // Rotation: the old refresh token is spent. The access token is still valid, so the
    // session is kept even though the server refused.
    let old = object(&[("refresh_token", old_refresh.as_str().into())]);
    let result = auth_error(
        client.auth().refresh_session(old).await,
        "AuthApiError",
        Some("refresh_token_already_used"),
        Some(400),
    );
    no_user_no_session(&result);
    assert!(stored(&key).is_some());
}

#[wasm_bindgen_test]
async fn reading_the_session_within_the_margin_refreshes_it() {
    let key = unique("sb-test-");
    let client = client(&key);
    let (_, before) = sign_up(&client).await;
    // 60 s left is inside the 90 s margin.
    expire_stored_session_in(&key, 60.0);
    let session = data_of(client.auth().get_session().await);
    assert_ne!(
        string(&session, "session.refresh_token"),
        string(&before, "session.refresh_token")
    );
    // 120 s left is not.
    let current = string(&session, "session.refresh_token");
    expire_stored_session_in(&key, 120.0);
    let session = data_of(client.auth().get_session().await);
    assert_eq!(string(&session, "session.refresh_token"), current);
}

#[wasm_bindgen_test]
async fn get_user_asks_the_server() {
    let client = client(&unique("sb-test-"));
    let missing = auth_error(
        client.auth().get_user(None).await,
        "AuthSessionMissingError",
        None,
        Some(400),
    );
    assert_eq!(string(&missing, "error.message"), "Auth session missing!");
    assert!(get(&missing, "data.user").is_null());

    let (email, data) = sign_up(&client).await;
    let user = data_of(client.auth().get_user(None).await);
    assert_eq!(string(&user, "user.email"), email);
    assert_eq!(string(&user, "user.aud"), "authenticated");
    let by_jwt = data_of(
        client
            .auth()
            .get_user(Some(string(&data, "session.access_token")))
            .await,
    );
    assert_eq!(string(&by_jwt, "user.id"), string(&user, "user.id"));
}

#[wasm_bindgen_test]
async fn set_session_adopts_tokens_from_elsewhere() {
    let (_, origin) = sign_up(&client(&unique("sb-test-"))).await;
    let key = unique("sb-test-");
    let client = client(&key);
    let events = subscribe(&client);
    let tokens = object(&[
        ("access_token", get(&origin, "session.access_token")),
        ("refresh_token", get(&origin, "session.refresh_token")),
    ]);
    let data = data_of(client.auth().set_session(tokens).await);
    assert_eq!(string(&data, "user.id"), string(&origin, "user.id"));
    assert_eq!(
        string(&data, "session.access_token"),
        string(&origin, "session.access_token")
    );
    // expires_at comes from the token's exp claim.
    assert_eq!(
        number(&data, "session.expires_at"),
        number(&origin, "session.expires_at")
    );
    assert_eq!(
        string(&stored(&key).unwrap(), "refresh_token"),
        string(&origin, "session.refresh_token")
    );
    wait_until("SIGNED_IN", 2000, || {
        event_names(&events).contains(&"SIGNED_IN".to_owned())
    })
    .await;

    let bad = object(&[
        ("access_token", "not-a-jwt".into()),
        ("refresh_token", "r".into()),
    ]);
    auth_error(
        client.auth().set_session(bad).await,
        "AuthInvalidJwtError",
        Some("invalid_jwt"),
        Some(400),
    );
    let empty = object(&[("access_token", "".into()), ("refresh_token", "r".into())]);
    auth_error(
        client.auth().set_session(empty).await,
        "AuthSessionMissingError",
        None,
        Some(400),
    );
}

#[wasm_bindgen_test]
async fn sign_out_ends_the_session_here_and_on_the_server() {
    let key = unique("sb-test-");
    let client = client(&key);
    let (_, data) = sign_up(&client).await;
    let events = subscribe(&client);
    let result = client.auth().sign_out(JsValue::UNDEFINED).await.unwrap();
    assert!(get(&result, "error").is_null());
    assert!(
        get(&result, "data").is_undefined(),
        "signOut returns only {{ error }}"
    );
    assert!(stored(&key).is_none());
    wait_until("SIGNED_OUT", 2000, || {
        event_names(&events).contains(&"SIGNED_OUT".to_owned())
    })
    .await;
    let session = data_of(client.auth().get_session().await);
    assert!(get(&session, "session").is_null());

    // The server ended it too: its refresh token is gone, its access token's session unknown.
    let old = object(&[("refresh_token", get(&data, "session.refresh_token"))]);
    auth_error(
        client.auth().refresh_session(old).await,
        "AuthApiError",
        Some("refresh_token_not_found"),
        Some(400),
    );
    auth_error(
        client
            .auth()
            .get_user(Some(string(&data, "session.access_token")))
            .await,
        "AuthSessionMissingError",
        None,
        Some(400),
    );
    // Signing out again, signed out, is fine.
    let again = client.auth().sign_out(JsValue::UNDEFINED).await.unwrap();
    assert!(get(&again, "error").is_null());
}

#[wasm_bindgen_test]
async fn sign_out_of_the_other_sessions_keeps_this_one() {
    let key = unique("sb-test-");
    let client = client(&key);
    let (email, _) = sign_up(&client).await;
    let other = support::client(&unique("sb-test-"));
    let other_data = data_of(
        other
            .auth()
            .sign_in_with_password(credentials(&email))
            .await,
    );
    let scope = object(&[("scope", "others".into())]);
    let result = client.auth().sign_out(scope).await.unwrap();
    assert!(get(&result, "error").is_null());
    assert!(stored(&key).is_some());
    data_of(client.auth().get_user(None).await);
    let ended = object(&[("refresh_token", get(&other_data, "session.refresh_token"))]);
    auth_error(
        other.auth().refresh_session(ended).await,
        "AuthApiError",
        Some("refresh_token_not_found"),
        Some(400),
    );
    let bad_scope = object(&[("scope", "everyone".into())]);
    let error = client
        .auth()
        .sign_out(bad_scope)
        .await
        .expect_err("refused");
    assert!(JsValue::from(error).is_instance_of::<js_sys::TypeError>());
}

#[wasm_bindgen_test]
async fn logbook_calls_carry_the_user_token_while_signed_in() {
    let emulator = emulator();
    let key = unique("sb-test-");
    let client = client(&key);
    let fetches = record_fetches();
    client
        .list_entries(JsValue::UNDEFINED)
        .await
        .expect("listed as anon");
    let (_, data) = sign_up(&client).await;
    client
        .sign_logbook(
            object(&[("name", "signed in".into()), ("message", "m".into())]),
            JsValue::UNDEFINED,
        )
        .await
        .expect("signed as the user");
    client
        .list_entries(JsValue::UNDEFINED)
        .await
        .expect("listed as the user");
    data_of(client.auth().sign_out(JsValue::UNDEFINED).await);
    client
        .list_entries(JsValue::UNDEFINED)
        .await
        .expect("listed as anon again");
    call(&fetches, "restore", &[]);

    let rest: Vec<(String, String)> = array(get(&fetches, "log"))
        .iter()
        .filter(|entry| string(entry, "url").contains("/rest/v1/"))
        .map(|entry| (string(entry, "authorization"), string(entry, "apikey")))
        .collect();
    let anon = format!("Bearer {}", emulator.anon_key);
    let user = format!("Bearer {}", string(&data, "session.access_token"));
    // Runs of the same token: a listing is one request per page plus the empty page that ends
    // it, and how many pages depends on the rows other tests left in the shared emulator.
    let mut runs: Vec<(String, usize)> = Vec::new();
    for (bearer, _) in &rest {
        match runs.last_mut() {
            Some((last, count)) if last == bearer => *count += 1,
            _ => runs.push((bearer.clone(), 1)),
        }
    }
    let tokens: Vec<&String> = runs.iter().map(|(bearer, _)| bearer).collect();
    assert_eq!(tokens, [&anon, &user, &anon]);
    // As the user: the signing's insert, then a listing of at least 2 pages.
    assert!(runs[1].1 >= 3, "{} requests as the user", runs[1].1);
    // As anon again: a listing of the (now non-empty) logbook, at least 2 pages.
    assert!(runs[2].1 >= 2, "{} requests as anon again", runs[2].1);
    assert!(rest.iter().all(|(_, apikey)| apikey == emulator.anon_key));
}

#[wasm_bindgen_test]
async fn subscribers_get_the_initial_session_then_events_until_they_unsubscribe() {
    let key = unique("sb-test-");
    let client = client(&key);
    let events = recorder();
    let result = client
        .auth()
        .on_auth_state_change(get(&events, "callback"))
        .unwrap();
    let subscription = get(&result, "data.subscription");
    assert!(get(&subscription, "id").as_f64().is_some());
    assert!(get(&subscription, "callback").is_function());
    wait_until("INITIAL_SESSION", 2000, || !event_names(&events).is_empty()).await;
    let initial = &array(get(&events, "events"))[0];
    assert_eq!(string(initial, "event"), "INITIAL_SESSION");
    assert!(get(initial, "session").is_null());

    let (_, data) = sign_up(&client).await;
    wait_until("SIGNED_IN", 2000, || event_names(&events).len() == 2).await;
    let signed_in = &array(get(&events, "events"))[1];
    assert_eq!(string(signed_in, "event"), "SIGNED_IN");
    assert_eq!(
        string(signed_in, "session.access_token"),
        string(&data, "session.access_token")
    );

    // A later subscriber's INITIAL_SESSION carries the stored session.
    let late = subscribe(&client);
    wait_until("late INITIAL_SESSION", 2000, || {
        !event_names(&late).is_empty()
    })
    .await;
    let initial = &array(get(&late, "events"))[0];
    assert_eq!(string(initial, "event"), "INITIAL_SESSION");
    assert_eq!(string(initial, "session.user.id"), string(&data, "user.id"));

    call(&subscription, "unsubscribe", &[]);
    call(&subscription, "unsubscribe", &[]);
    data_of(client.auth().sign_out(JsValue::UNDEFINED).await);
    wait_until("the late subscriber's SIGNED_OUT", 2000, || {
        event_names(&late).contains(&"SIGNED_OUT".to_owned())
    })
    .await;
    assert_eq!(event_names(&events), ["INITIAL_SESSION", "SIGNED_IN"]);
}

#[wasm_bindgen_test]
async fn a_throwing_subscriber_does_not_stop_the_others() {
    let client = client(&unique("sb-test-"));
    let thrower = js_sys::Function::new_with_args("event", "throw new Error('subscriber bug')");
    client.auth().on_auth_state_change(thrower.into()).unwrap();
    let events = subscribe(&client);
    sign_up(&client).await;
    wait_until("SIGNED_IN", 2000, || {
        event_names(&events).contains(&"SIGNED_IN".to_owned())
    })
    .await;
    let error = client
        .auth()
        .on_auth_state_change("not a function".into())
        .expect_err("refused");
    let error = JsValue::from(error);
    assert!(error.is_instance_of::<js_sys::TypeError>());
    assert_eq!(
        Reflect::get(&error, &"code".into()).unwrap(),
        JsValue::from("invalid_argument")
    );
}

#[wasm_bindgen_test]
async fn malformed_arguments_are_type_errors() {
    let client = client(&unique("sb-test-"));
    for bad in [JsValue::from(5), object(&[("email", 5.into())])] {
        let error = client.auth().sign_up(bad).await.expect_err("refused");
        let error = JsValue::from(error);
        assert!(error.is_instance_of::<js_sys::TypeError>(), "{error:?}");
        assert!(string(&error, "message").starts_with("invalid credentials: "));
    }
    let emulator = emulator();
    let options = object(&[("auth", object(&[("autoRefreshTickMs", 0.into())]))]);
    let error = create_client(
        Some(emulator.url.into()),
        Some(emulator.anon_key.into()),
        options,
    )
    .err()
    .expect("refused");
    let error = JsValue::from(error);
    assert!(error.is_instance_of::<js_sys::TypeError>());
    assert!(string(&error, "message").starts_with("invalid options: autoRefreshTickMs"));
}

#[wasm_bindgen_test]
async fn network_failures_are_retryable_fetch_errors() {
    let emulator = emulator();
    let options = object(&[("auth", object(&[("storageKey", unique("sb-test-").into())]))]);
    let client = create_client(
        Some("http://127.0.0.1:47".into()),
        Some(emulator.anon_key.into()),
        options,
    )
    .unwrap();
    let result = auth_error(
        client
            .auth()
            .sign_in_with_password(credentials("a@b.c"))
            .await,
        "AuthRetryableFetchError",
        None,
        Some(0),
    );
    assert_eq!(get(&result, "error.retryable").as_bool(), Some(true));
    no_user_no_session(&result);
}
