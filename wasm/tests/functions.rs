//! `client.functions.invoke` in headless Chromium, against an emulator relaying to the tests'
//! function server (tests/fixtures/function-server.mjs): the case table supabase-js runs in
//! tests/conformance/functions.test.mjs, imported from the same module, then a signed-in call
//! and the arguments refused before anything is sent.
//!
//! The functions emulator is its own (its config lists the test functions), read at compile
//! time: `FUNCTIONS_EMULATOR_URL=… FUNCTIONS_EMULATOR_ANON_KEY=…
//! FUNCTIONS_EMULATOR_PUBLISHABLE_KEY=… wasm-pack test --headless --chrome wasm`; scripts/test.mjs
//! (step wasm-browser) starts both and sets them.
#![cfg(all(target_arch = "wasm32", feature = "functions", feature = "auth"))]
#![cfg_attr(test, allow(clippy::unwrap_used))]

use geocache_client::{create_client, Client, ClientError};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(module = "/../tests/conformance/functions-cases.js")]
extern "C" {
    #[wasm_bindgen(thread_local_v2, js_name = CASES)]
    static CASES: Array;
    #[wasm_bindgen(js_name = buildOptions)]
    fn build_options(case: &JsValue) -> JsValue;
    #[wasm_bindgen(catch)]
    async fn normalize(result: JsValue) -> Result<JsValue, JsValue>;
    fn mismatch(expected: &JsValue, actual: &JsValue) -> JsValue;
}

/// Nothing listens on this privileged port on a test machine, and Chromium does not block it.
const UNREACHABLE_URL: &str = "http://127.0.0.1:47";

struct Backend {
    url: &'static str,
    anon_key: &'static str,
    publishable_key: &'static str,
}

fn backend() -> Backend {
    let set = |value: Option<&'static str>| value.filter(|value| !value.is_empty());
    match (
        set(option_env!("FUNCTIONS_EMULATOR_URL")),
        set(option_env!("FUNCTIONS_EMULATOR_ANON_KEY")),
        set(option_env!("FUNCTIONS_EMULATOR_PUBLISHABLE_KEY")),
    ) {
        (Some(url), Some(anon_key), Some(publishable_key)) => Backend {
            url,
            anon_key,
            publishable_key,
        },
        _ => panic!(
            "FUNCTIONS_EMULATOR_URL, FUNCTIONS_EMULATOR_ANON_KEY and \
             FUNCTIONS_EMULATOR_PUBLISHABLE_KEY must be set when the tests are compiled: \
             scripts/test.mjs wasm-browser starts the function server and its emulator"
        ),
    }
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).expect("readable property")
}

/// A client that keeps no session between tests.
fn client(url: &str, key: &str) -> Client {
    let auth = Object::new();
    Reflect::set(&auth, &"persistSession".into(), &false.into()).unwrap();
    Reflect::set(&auth, &"autoRefreshToken".into(), &false.into()).unwrap();
    let options = Object::new();
    Reflect::set(&options, &"auth".into(), &auth).unwrap();
    create_client(Some(url.into()), Some(key.into()), options.into()).expect("valid config")
}

fn json(value: &JsValue) -> String {
    // `undefined` stringifies to `undefined`, not a string.
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

#[wasm_bindgen_test]
async fn every_case_of_the_shared_table_holds() {
    let backend = backend();
    let cases = CASES.with(Array::clone);
    assert!(cases.length() > 10, "the case table was not loaded");
    let mut failures = Vec::new();
    for case in cases.iter() {
        let title = get(&case, "title").as_string().unwrap_or_default();
        let url = match get(&case, "backend").as_string().as_deref() {
            Some("unreachable") => UNREACHABLE_URL,
            _ => backend.url,
        };
        let key = match get(&case, "key").as_string().as_deref() {
            Some("anon") => backend.anon_key,
            _ => backend.publishable_key,
        };
        let result = client(url, key)
            .functions()
            .invoke(get(&case, "name"), build_options(&case))
            .await
            .unwrap_or_else(|error| panic!("{title}: invoke rejected: {error}"));
        let facts = normalize(result)
            .await
            .unwrap_or_else(|thrown| panic!("{title}: {thrown:?}"));
        let found = mismatch(&get(&case, "expect"), &facts);
        if let Some(found) = found.as_string() {
            failures.push(format!("{title}: {found} in {}", json(&facts)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[wasm_bindgen_test]
async fn a_signed_in_users_token_is_the_bearer() {
    let backend = backend();
    let client = client(backend.url, backend.publishable_key);
    let credentials = Object::new();
    let email = format!("fn-{}@example.com", js_sys::Math::random());
    Reflect::set(&credentials, &"email".into(), &email.into()).unwrap();
    Reflect::set(
        &credentials,
        &"password".into(),
        &"correct horse battery".into(),
    )
    .unwrap();
    let signed_up = client.auth().sign_up(credentials.into()).await.unwrap();
    let token = get(&get(&get(&signed_up, "data"), "session"), "access_token");
    assert!(token.is_string(), "no session: {}", json(&signed_up));
    let result = client
        .functions()
        .invoke("guarded".into(), JsValue::UNDEFINED)
        .await
        .unwrap();
    assert!(get(&result, "error").is_null(), "{}", json(&result));
    let headers = get(&get(&result, "data"), "headers");
    assert_eq!(
        get(&headers, "authorization").as_string(),
        Some(format!("Bearer {}", token.as_string().unwrap()))
    );
}

#[wasm_bindgen_test]
async fn arguments_that_cannot_make_a_request_are_type_errors() {
    let backend = backend();
    let client = client(backend.url, backend.publishable_key);
    let options = |key: &str, value: JsValue| {
        let object = Object::new();
        Reflect::set(&object, &key.into(), &value).unwrap();
        JsValue::from(object)
    };
    let refusals: [(JsValue, JsValue); 5] = [
        ("../admin".into(), JsValue::UNDEFINED),
        (JsValue::from(7), JsValue::UNDEFINED),
        ("echo".into(), options("method", "TRACE".into())),
        ("echo".into(), options("headers", options("x", 1.into()))),
        ("echo".into(), "not an object".into()),
    ];
    for (name, invoke_options) in refusals {
        let described = format!("{name:?} {}", json(&invoke_options));
        let error: ClientError = client
            .functions()
            .invoke(name, invoke_options)
            .await
            .expect_err(&described);
        let error = JsValue::from(error);
        assert!(error.is_instance_of::<js_sys::TypeError>(), "{described}");
        assert_eq!(
            get(&error, "code").as_string().as_deref(),
            Some("invalid_argument")
        );
    }
    // A body JSON cannot hold is refused before sending too.
    let cyclic = Object::new();
    Reflect::set(&cyclic, &"self".into(), &cyclic).unwrap();
    let error = client
        .functions()
        .invoke("echo".into(), options("body", cyclic.into()))
        .await
        .expect_err("a cycle cannot be JSON");
    assert!(JsValue::from(error).is_instance_of::<js_sys::TypeError>());
}

#[wasm_bindgen_test]
async fn errors_are_real_errors_with_supabase_js_names_and_a_code() {
    let backend = backend();
    let result = client(backend.url, backend.publishable_key)
        .functions()
        .invoke("fail".into(), JsValue::UNDEFINED)
        .await
        .unwrap();
    let error = get(&result, "error");
    assert!(error.is_instance_of::<js_sys::Error>());
    assert_eq!(
        get(&error, "name").as_string().as_deref(),
        Some("FunctionsHttpError")
    );
    assert_eq!(
        get(&error, "code").as_string().as_deref(),
        Some("functions_http_error")
    );
    assert_eq!(get(&error, "status").as_f64(), Some(500.0));
    let context = get(&error, "context");
    assert!(context.is_instance_of::<web_sys::Response>());
    assert_eq!(
        &context,
        &get(&result, "response"),
        "the context is the response"
    );
}

#[wasm_bindgen_test]
async fn the_callers_signal_still_aborts_a_call_with_a_timeout() {
    let backend = backend();
    let controller = web_sys::AbortController::new().unwrap();
    let options = Object::new();
    Reflect::set(&options, &"timeout".into(), &60_000.into()).unwrap();
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let client = client(backend.url, backend.publishable_key);
    let functions = client.functions();
    let call = functions.invoke("slow".into(), options.into());
    let abort = async {
        geocache_client::transport::timer::sleep(50).await;
        controller.abort();
    };
    let (result, ()) = futures_util::future::join(call, abort).await;
    let error = get(&result.unwrap(), "error");
    assert_eq!(
        get(&error, "name").as_string().as_deref(),
        Some("FunctionsFetchError")
    );
    assert_eq!(
        get(&get(&error, "context"), "name").as_string().as_deref(),
        Some("AbortError")
    );
    // A signal aborted before the call aborts it too.
    let options = Object::new();
    Reflect::set(&options, &"timeout".into(), &60_000.into()).unwrap();
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let result = client
        .functions()
        .invoke("text".into(), options.into())
        .await
        .unwrap();
    assert_eq!(
        get(&get(&result, "error"), "name").as_string().as_deref(),
        Some("FunctionsFetchError")
    );
    // A timeout that is not a whole number of milliseconds is refused before sending.
    let bad = Object::new();
    Reflect::set(&bad, &"timeout".into(), &1.5.into()).unwrap();
    let refused = client
        .functions()
        .invoke("echo".into(), bad.into())
        .await
        .expect_err("a fractional timeout");
    assert!(JsValue::from(refused).is_instance_of::<js_sys::TypeError>());
}
