//! storage-js's result convention: every call resolves to `{ data, error }` and never rejects
//! for a storage failure. `error` is a real `Error` with storage-js's `name`
//! (`StorageApiError`, `StorageUnknownError`, `StorageError`), `status`, `statusCode` and `code`
//! (undefined where storage-js has none) and `__isStorageError`, so supabase-js's
//! `isStorageError` recognises it.

use geocache_core::storage::StorageError;
use js_sys::{Object, Reflect};
use serde_json::Value;
use wasm_bindgen::JsValue;

use crate::error::ClientError;

/// `{ data, error: null }`, or `{ data: null, error }`.
pub fn respond(result: Result<JsValue, StorageError>) -> JsValue {
    let (data, error) = match result {
        Ok(data) => (data, JsValue::NULL),
        Err(error) => (JsValue::NULL, error_to_js(&error)),
    };
    object(&[("data", data), ("error", error)])
}

/// Plain JS data, as `response.json()` would give it.
pub fn to_js(value: &Value) -> Result<JsValue, ClientError> {
    js_sys::JSON::parse(&value.to_string())
        .map_err(|_| ClientError::Internal("storage data is not JSON".into()))
}

/// The `Error` a storage call resolves with.
pub fn error_to_js(error: &StorageError) -> JsValue {
    let js_error = js_sys::Error::new(&error.to_string());
    let optional = |value: Option<&str>| value.map_or(JsValue::UNDEFINED, JsValue::from);
    let properties: [(&str, JsValue); 5] = [
        ("name", error.name().into()),
        (
            "status",
            error.status().map_or(JsValue::UNDEFINED, JsValue::from),
        ),
        ("statusCode", optional(error.status_code())),
        ("code", optional(error.code())),
        ("__isStorageError", true.into()),
    ];
    for (key, value) in properties {
        // Defining a property on a fresh, unfrozen Error object cannot fail.
        let _ = Reflect::set(&js_error, &key.into(), &value);
    }
    js_error.into()
}

/// A plain object with these properties.
pub fn object(properties: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (key, value) in properties {
        // Defining a property on a fresh plain object cannot fail.
        let _ = Reflect::set(&object, &(*key).into(), value);
    }
    object.into()
}
