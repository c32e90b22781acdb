//! The error objects of a failed invoke: real `Error`s with supabase-js's `name` and message, its
//! `context` (the Response, or what fetch threw), and this client's `code`; `status` too when
//! there is a response.

use geocache_core::functions::FunctionsFailure;
use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// The error for `failure` with `context`.
pub fn functions_error(failure: FunctionsFailure, context: &JsValue) -> JsValue {
    let error: JsValue = js_sys::Error::new(failure.message()).into();
    let status = Reflect::get(context, &"status".into())
        .ok()
        .filter(|_| failure != FunctionsFailure::Fetch)
        .unwrap_or(JsValue::UNDEFINED);
    let properties: [(&str, JsValue); 4] = [
        ("name", failure.name().into()),
        ("code", failure.code().into()),
        ("context", context.clone()),
        ("status", status),
    ];
    for (key, value) in properties {
        // Setting a property of a fresh Error cannot fail.
        let _ = Reflect::set(&error, &key.into(), &value);
    }
    error
}
