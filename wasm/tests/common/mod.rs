//! Helpers every browser test can use, in both builds (no auth-only dependency): the emulator's
//! address and keys, unique names, and reading and building JS values. `support` (auth tests)
//! and `faults` (fault tests) re-export them.
#![cfg_attr(test, allow(clippy::unwrap_used))]
#![allow(dead_code)]

// The client's own timer: a plain `setTimeout`, in both builds. (Unused by some test crates, as
// the other helpers here are.)
#[allow(unused_imports)]
pub use geocache_client::transport::timer::sleep;
use js_sys::{Array, Object, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub struct Emulator {
    pub url: &'static str,
    pub anon_key: &'static str,
    pub service_role_key: &'static str,
}

/// The emulator the tests talk to, read at compile time: scripts/test.sh starts it with a short
/// MFA challenge lifetime and a cheap password hash (the auth tests rely on both).
pub fn emulator() -> Emulator {
    let set = |value: Option<&'static str>| value.filter(|value| !value.is_empty());
    match (
        set(option_env!("EMULATOR_URL")),
        set(option_env!("EMULATOR_ANON_KEY")),
        set(option_env!("EMULATOR_SERVICE_ROLE_KEY")),
    ) {
        (Some(url), Some(anon_key), Some(service_role_key)) => Emulator {
            url: url.trim_end_matches('/'),
            anon_key,
            service_role_key,
        },
        _ => panic!(
            "EMULATOR_URL, EMULATOR_ANON_KEY and EMULATOR_SERVICE_ROLE_KEY must be set when the \
             tests are compiled: start `target/debug/geocache-emulator --port 0 --db :memory: \
             --mfa-challenge-expiry 3 --password-hash-cost 4` and pass the `API URL:`, `anon key:` \
             and `service_role key:` it prints"
        ),
    }
}

/// A name no other test (or run) uses.
pub fn unique(label: &str) -> String {
    let random = js_sys::Math::random().to_string();
    format!("{label}{}", random.trim_start_matches("0."))
}

pub fn object(properties: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (key, value) in properties {
        Reflect::set(&object, &(*key).into(), value).unwrap();
    }
    object.into()
}

pub fn get(value: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(value.clone(), |value, key| {
        Reflect::get(&value, &key.into()).unwrap_or(JsValue::UNDEFINED)
    })
}

pub fn string(value: &JsValue, path: &str) -> String {
    get(value, path)
        .as_string()
        .unwrap_or_else(|| panic!("{path} is not a string in {}", json(value)))
}

pub fn number(value: &JsValue, path: &str) -> f64 {
    get(value, path)
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number in {}", json(value)))
}

pub fn json(value: &JsValue) -> String {
    JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

pub fn array(value: JsValue) -> Vec<JsValue> {
    value.dyn_into::<Array>().expect("an array").to_vec()
}
