//! The exported API in headless Chromium against a running emulator.
//!
//! The emulator's URL and anon key are read at compile time:
//! `EMULATOR_URL=… EMULATOR_ANON_KEY=… WASM_BINDGEN_TEST_TIMEOUT=60 wasm-pack test --headless --chrome wasm`
#![cfg(all(target_arch = "wasm32", feature = "rest"))]
#![cfg_attr(test, allow(clippy::unwrap_used))]

use futures_util::future::join3;
use geocache_client::transport::Transport;
use geocache_client::{create_client, Client, ClientError, EntryList};
use geocache_core::logbook::outcome::expect_success;
use geocache_core::rest::Postgrest;
use geocache_core::{ClientConfig, LogbookError, SchemaError, Timestamp};
use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Nothing listens on this privileged port on a test machine, and Chromium does not block it.
const UNUSED_PORT_URL: &str = "http://127.0.0.1:47";

fn emulator() -> (&'static str, &'static str) {
    match (
        option_env!("EMULATOR_URL"),
        option_env!("EMULATOR_ANON_KEY"),
    ) {
        (Some(url), Some(key)) if !url.is_empty() && !key.is_empty() => (url, key),
        _ => panic!(
            "EMULATOR_URL and EMULATOR_ANON_KEY must be set when the tests are compiled: start \
             `target/debug/geocache-emulator --port 0 --db :memory:` and pass the `API URL:` and \
             `anon key:` it prints"
        ),
    }
}

/// `createClient(url, key)`.
fn create(url: Option<&str>, key: Option<&str>) -> Result<Client, ClientError> {
    create_client(url.map(Into::into), key.map(Into::into), JsValue::UNDEFINED)
}

fn client() -> Client {
    let (url, key) = emulator();
    create(Some(url), Some(key)).expect("emulator config is valid")
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).expect("readable property")
}

fn string(value: &JsValue, key: &str) -> String {
    get(value, key)
        .as_string()
        .unwrap_or_else(|| panic!("{key} is not a string"))
}

/// The list as `LogEntry` objects, through `toArray()`.
fn entries(list: EntryList) -> Vec<JsValue> {
    list.to_array().to_vec()
}

fn new_entry(name: &str, message: &str) -> JsValue {
    let entry = js_sys::Object::new();
    Reflect::set(&entry, &"name".into(), &name.into()).unwrap();
    Reflect::set(&entry, &"message".into(), &message.into()).unwrap();
    entry.into()
}

/// A name no other test run has used.
fn unique(label: &str) -> String {
    format!("{label}-{}", js_sys::Math::random())
}

/// The error as JS sees it, checked to be a real `Error` with the given name and code.
fn js_error(error: ClientError, name: &str, code: &str) -> JsValue {
    let value = JsValue::from(error);
    assert!(
        value.is_instance_of::<js_sys::Error>(),
        "not an Error: {value:?}"
    );
    assert_eq!(string(&value, "name"), name);
    assert_eq!(string(&value, "code"), code);
    let own =
        |key: &str| js_sys::Object::has_own(value.unchecked_ref::<js_sys::Object>(), &key.into());
    assert!(
        own("name") && own("code"),
        "name and code must be own properties"
    );
    value
}

#[wasm_bindgen_test]
async fn list_returns_entries_newest_first() {
    let client = client();
    let names: Vec<String> = (0..3).map(|i| unique(&format!("order-{i}"))).collect();
    for name in &names {
        client
            .sign_logbook(new_entry(name, "m"), JsValue::UNDEFINED)
            .await
            .expect("signed");
    }
    let list = entries(
        client
            .list_entries(JsValue::UNDEFINED)
            .await
            .expect("listed"),
    );
    let instants: Vec<i128> = list
        .iter()
        .map(|entry| {
            Timestamp::parse(&string(entry, "created_at"))
                .expect("a timestamp")
                .unix_nanos()
        })
        .collect();
    assert!(
        instants.windows(2).all(|pair| pair[0] >= pair[1]),
        "{instants:?}"
    );
    let positions: Vec<usize> = names
        .iter()
        .map(|name| {
            list.iter()
                .position(|entry| string(entry, "name") == *name)
                .expect("signed entry listed")
        })
        .collect();
    assert!(
        positions[0] > positions[1] && positions[1] > positions[2],
        "{positions:?}"
    );
}

#[wasm_bindgen_test]
async fn signed_entry_is_listed_as_a_plain_object() {
    let client = client();
    let name = unique("visitor");
    let result = client
        .sign_logbook(new_entry(&name, "Found it!"), JsValue::UNDEFINED)
        .await;
    assert!(result.is_ok());
    let list = entries(
        client
            .list_entries(JsValue::UNDEFINED)
            .await
            .expect("listed"),
    );
    let entry = list
        .iter()
        .find(|entry| string(entry, "name") == name)
        .expect("the signed entry is listed");
    assert_eq!(string(entry, "message"), "Found it!");
    assert!(get(entry, "id").as_f64().is_some(), "id is a number");
    assert!(Timestamp::parse(&string(entry, "created_at")).is_ok());
    // Plain data as JSON.parse would give: an Object, not a Map.
    assert_eq!(
        js_sys::Object::get_prototype_of(entry),
        js_sys::Object::get_prototype_of(&js_sys::Object::new())
    );
}

#[wasm_bindgen_test]
async fn hostile_text_round_trips_byte_for_byte() {
    let client = client();
    let messages = [
        "<img src=x onerror=alert(1)>".to_owned(),
        "<script>alert('x')</script> & \"quotes\" \\ backslash \n\t\r".to_owned(),
        "x".repeat(10_000),
        "😀🏳️‍🌈 emoji, e\u{301} combining".to_owned(),
        "\u{202E}שלום עולם مرحبا\u{200F}".to_owned(),
        "'; DROP TABLE geocache_logs; --".to_owned(),
    ];
    for message in &messages {
        let name = unique("hostile");
        client
            .sign_logbook(new_entry(&name, message), JsValue::UNDEFINED)
            .await
            .expect("signed");
        let list = entries(
            client
                .list_entries(JsValue::UNDEFINED)
                .await
                .expect("listed"),
        );
        let entry = list
            .iter()
            .find(|entry| string(entry, "name") == name)
            .expect("listed");
        assert_eq!(string(entry, "message").as_bytes(), message.as_bytes());
    }
}

#[wasm_bindgen_test]
async fn anon_update_is_refused_with_postgrest_code_and_status() {
    let (url, key) = emulator();
    let config = ClientConfig::new(url, key).unwrap();
    let request = Postgrest::new(&config, None)
        .from("geocache_logs")
        .update(r#"{"name":"changed"}"#)
        .eq("id", "1")
        .build();
    let error = expect_success(Transport::default().send(&request).await).expect_err("refused");
    let value = js_error(error.into(), "LogbookError", "42501");
    assert_eq!(get(&value, "status").as_f64(), Some(401.0));
    assert_eq!(get(&value, "retryable").as_bool(), Some(false));
    assert!(!string(&value, "message").is_empty());
}

#[wasm_bindgen_test]
async fn unknown_table_is_a_pgrst205_not_found() {
    let (url, key) = emulator();
    let config = ClientConfig::new(url, key).unwrap();
    let request = Postgrest::new(&config, None)
        .from("no_such_table")
        .select("*")
        .build();
    let error = expect_success(Transport::default().send(&request).await).expect_err("refused");
    let value = js_error(error.into(), "LogbookError", "PGRST205");
    assert_eq!(get(&value, "status").as_f64(), Some(404.0));
    // PostgREST always sends both; `null` when it has nothing to say.
    for key in ["details", "hint"] {
        let field = get(&value, key);
        assert!(field.is_null() || field.is_string(), "{key}: {field:?}");
    }
}

#[wasm_bindgen_test]
async fn a_wrong_key_is_refused_by_the_server() {
    let (url, _) = emulator();
    let client = create(Some(url), Some("not-a-jwt")).unwrap();
    let error = client
        .list_entries(JsValue::UNDEFINED)
        .await
        .expect_err("refused");
    let value = JsValue::from(error);
    assert!(value.is_instance_of::<js_sys::Error>());
    assert_eq!(string(&value, "name"), "LogbookError");
    assert_eq!(get(&value, "status").as_f64(), Some(401.0));
}

#[wasm_bindgen_test]
async fn an_unreachable_server_is_a_retryable_network_error() {
    let (_, key) = emulator();
    let client = create(Some(UNUSED_PORT_URL), Some(key)).unwrap();
    // Reads and signs are sent again three times over 7 s first: run the three calls side by
    // side.
    let (list, newest, signed) = join3(
        client.list_entries(JsValue::UNDEFINED),
        client.list_newest_entries(2),
        client.sign_logbook(new_entry("n", "m"), JsValue::UNDEFINED),
    )
    .await;
    let value = js_error(
        list.expect_err("no server"),
        "LogbookError",
        "network_error",
    );
    assert_eq!(get(&value, "status").as_f64(), Some(0.0));
    assert_eq!(get(&value, "retryable").as_bool(), Some(true));
    js_error(
        newest.expect_err("no server"),
        "LogbookError",
        "network_error",
    );
    let value = js_error(
        signed.expect_err("no server"),
        "LogbookError",
        "network_error",
    );
    // A refused connection looks like one dropped after the insert arrived: the outcome is
    // open, and the key signs it again without doubling it.
    assert_eq!(string(&value, "outcome"), "unknown");
    assert_eq!(string(&value, "idempotencyKey").len(), 36);
}

#[wasm_bindgen_test]
async fn a_malformed_entry_is_refused_before_any_request() {
    // The URL points nowhere: a request would be a network_error, not invalid_argument.
    let client = create(Some(UNUSED_PORT_URL), Some("key")).unwrap();
    let without_message = new_entry("n", "m");
    Reflect::delete_property(
        without_message.unchecked_ref::<js_sys::Object>(),
        &"message".into(),
    )
    .unwrap();
    let wrong_type = new_entry("n", "m");
    Reflect::set(&wrong_type, &"name".into(), &5.into()).unwrap();
    for bad in [JsValue::from("entry"), without_message, wrong_type] {
        let error = client
            .sign_logbook(bad, JsValue::UNDEFINED)
            .await
            .expect_err("refused");
        let value = JsValue::from(error);
        assert!(value.is_instance_of::<js_sys::TypeError>(), "{value:?}");
        assert_eq!(string(&value, "code"), "invalid_argument");
        assert!(string(&value, "message").starts_with("invalid entry: "));
    }
}

#[wasm_bindgen_test]
fn create_client_errors_are_real_errors_with_supabase_js_messages() {
    let cases = [
        (None, Some("k"), "url_required", "supabaseUrl is required."),
        (
            Some("  "),
            Some("k"),
            "url_required",
            "supabaseUrl is required.",
        ),
        (
            Some("ftp://x"),
            Some("k"),
            "url_invalid_scheme",
            "Invalid supabaseUrl: Must be a valid HTTP or HTTPS URL.",
        ),
        (
            Some("http://"),
            Some("k"),
            "url_malformed",
            "Invalid supabaseUrl: Provided URL is malformed.",
        ),
        (
            Some("http://h"),
            None,
            "key_required",
            "supabaseKey is required.",
        ),
        (
            Some("http://h"),
            Some(""),
            "key_required",
            "supabaseKey is required.",
        ),
    ];
    for (url, key, code, message) in cases {
        let error = create(url, key)
            .err()
            .unwrap_or_else(|| panic!("{url:?} {key:?} accepted"));
        let value = js_error(error, "ConfigError", code);
        assert_eq!(string(&value, "message"), message);
        assert!(get(&value, "stack").is_string(), "a real stack");
    }
}

#[wasm_bindgen_test]
fn schema_mismatches_carry_index_field_expected_and_found() {
    let error = LogbookError::Body {
        status: 200,
        error: SchemaError::Field {
            index: 3,
            field: "created_at",
            expected: "a timestamp string",
            found: "number 5".into(),
        },
    };
    let value = js_error(error.into(), "LogbookError", "schema_mismatch");
    assert_eq!(
        string(&value, "message"),
        "entry 3: field \"created_at\": expected a timestamp string, found number 5"
    );
    assert_eq!(get(&value, "index").as_f64(), Some(3.0));
    assert_eq!(string(&value, "field"), "created_at");
    assert_eq!(string(&value, "expected"), "a timestamp string");
    assert_eq!(string(&value, "found"), "number 5");
    assert_eq!(get(&value, "retryable").as_bool(), Some(false));

    let error = LogbookError::Body {
        status: 200,
        error: SchemaError::NotAnArray {
            found: "object".into(),
        },
    };
    let value = js_error(error.into(), "LogbookError", "schema_mismatch");
    assert!(get(&value, "index").is_null() && get(&value, "field").is_null());

    let error = LogbookError::Body {
        status: 200,
        error: SchemaError::InvalidJson {
            reason: "expected value at line 1 column 1".into(),
        },
    };
    let value = js_error(error.into(), "LogbookError", "invalid_json");
    assert!(
        get(&value, "index").is_undefined(),
        "no schema fields on invalid_json"
    );
}

#[wasm_bindgen_test]
fn internal_errors_are_real_errors_too() {
    let value = js_error(
        ClientError::Internal("x".into()),
        "InternalError",
        "internal_error",
    );
    assert_eq!(string(&value, "message"), "internal error: x");
}

#[wasm_bindgen_test]
async fn entry_list_rows_are_read_by_index() {
    let client = client();
    let older = unique("older");
    let newer = unique("newer");
    let hostile = "<img src=x onerror=alert(1)>\n\u{202E}שלום 😀 \"q\" \\";
    for (name, message) in [(&older, "first"), (&newer, hostile)] {
        client
            .sign_logbook(new_entry(name, message), JsValue::UNDEFINED)
            .await
            .expect("signed");
    }
    let list = client
        .list_entries(JsValue::UNDEFINED)
        .await
        .expect("listed");
    let length = list.length();
    assert!(length >= 2);
    for index in 0..length {
        let position = index as f64;
        let entry = JsValue::from(list.get(position).expect("in range"));
        assert_eq!(list.id(position).ok(), get(&entry, "id").as_f64());
        let text = |value: Result<js_sys::JsString, js_sys::RangeError>| {
            String::from(value.expect("in range"))
        };
        assert_eq!(
            text(list.created_at(position)),
            string(&entry, "created_at")
        );
        assert_eq!(text(list.name(position)), string(&entry, "name"));
        assert_eq!(text(list.message(position)), string(&entry, "message"));
    }
    let names: Vec<String> = (0..length)
        .map(|index| String::from(list.name(index as f64).unwrap()))
        .collect();
    let position = |name: &str| names.iter().position(|shown| shown == name).unwrap();
    assert!(position(&newer) < position(&older), "newest first");
    assert_eq!(
        String::from(list.message(position(&newer) as f64).unwrap()),
        hostile
    );

    for bad in [length as f64, -1.0, 0.5, f64::NAN, f64::INFINITY] {
        let error = list.name(bad).expect_err("out of range");
        assert!(error.is_instance_of::<js_sys::RangeError>(), "{bad}");
        assert!(list.id(bad).is_err() && list.get(bad).is_err(), "{bad}");
    }
    assert_eq!(list.to_array().length() as usize, length);
    let ids = list.ids();
    assert_eq!(ids.len(), length);
    for (index, id) in ids.iter().enumerate() {
        assert_eq!(list.id(index as f64).ok(), Some(*id));
    }
}

#[wasm_bindgen_test]
async fn the_newest_entries_are_the_head_of_the_list() {
    let client = client();
    for index in 0..3 {
        client
            .sign_logbook(
                new_entry(&unique(&format!("head-{index}")), "m"),
                JsValue::UNDEFINED,
            )
            .await
            .expect("signed");
    }
    let all = client
        .list_entries(JsValue::UNDEFINED)
        .await
        .expect("listed");
    let newest = client.list_newest_entries(2).await.expect("listed");
    assert_eq!(newest.length(), 2);
    assert_eq!(&all.ids()[..2], &newest.ids()[..]);
    assert_eq!(
        client
            .list_newest_entries(0)
            .await
            .expect("listed")
            .length(),
        0
    );
}

#[wasm_bindgen]
extern "C" {
    /// The browser's own URL class: what supabase-js validates the project URL with.
    #[wasm_bindgen(js_name = URL)]
    type BrowserUrl;
    #[wasm_bindgen(constructor, js_class = "URL", catch)]
    fn new(url: &str) -> Result<BrowserUrl, JsValue>;
    #[wasm_bindgen(method, getter)]
    fn href(this: &BrowserUrl) -> String;
}

#[wasm_bindgen_test]
fn project_urls_parse_as_the_browsers_url_does() {
    let inputs = [
        "http://example.com",
        "HTTPS://EXAMPLE.com/A/b",
        "http://h:80/",
        "https://h:443",
        "http://h:0443/",
        "http://h:/",
        "http://h:65535",
        "http://h:65536",
        "http://h:8o/",
        "http://user:pa ss@h/",
        "http://a@b@h/",
        "http://a:b:c@h/",
        "http://:@h/",
        "http://u@/",
        "http:\\\\h\\a\\b",
        "http:////h//x",
        "http://h/a/./b/../c/%2e%2E/d/",
        "http://h/a b/é/\"q\"/`{}",
        "http://h/p?q r'\"#f g`",
        "http://h?x=1/",
        "http://ex\tam\nple.c\rom/",
        "http://EXA%4dPLE.com/",
        "http://a%2Fb/",
        "http://a<b/",
        // Not "https://exa mple.com": Chromium takes it as host `exa%20mple.com`, against the
        // standard; Node and the url crate refuse it, and so does the core.
        "http://0x7f.1/",
        "http://2130706433/",
        "http://0177.0.0.1./",
        "http://1.2.3/",
        "http://256.0.0.1/",
        "http://a.1/",
        "http://09/",
        "http://[::1]:54321/",
        "http://[0:0:0:0:0:0:0:1]/",
        "http://[1:0:0:2:0:0:0:3]/",
        "http://[::FFFF:192.168.0.1]/",
        "http://[1::2::3]/",
        "http://[::1.2.3]/",
        "http://[::1",
        "http://a..b./",
        "http://a/g|/..",
    ];
    for input in inputs {
        let ours =
            geocache_core::client::project_url::ProjectUrl::parse(input).map(|url| url.href());
        let browser = BrowserUrl::new(input).ok().map(|url| url.href());
        assert_eq!(ours, browser, "{input:?}");
    }
}

#[cfg(feature = "bench")]
#[wasm_bindgen_test]
fn the_benchmark_export_counts_valid_entries_and_throws_the_page_error() {
    use geocache_client::client::entry_list::parse_entries_for_benchmark;
    let body = br#"[{"id":1,"created_at":"2024-05-01T10:00:00+00:00","name":"a","message":"m"},
                    {"id":2,"created_at":"2024-05-01T11:00:00+00:00","name":"b","message":"n"}]"#;
    assert_eq!(parse_entries_for_benchmark(body.to_vec()).ok(), Some(2));
    let bad = br#"[{"id":1,"created_at":5,"name":"a","message":"m"}]"#;
    let error = parse_entries_for_benchmark(bad.to_vec()).expect_err("mismatch");
    let value = js_error(error, "LogbookError", "schema_mismatch");
    assert_eq!(string(&value, "field"), "created_at");
}
