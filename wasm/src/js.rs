//! Plain data across the boundary: one serde helper each way.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_wasm_bindgen::{Error, Serializer};
use wasm_bindgen::JsValue;

/// Rust value to plain JS data: objects (not `Map`s) and numbers, as `JSON.parse` would give.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, Error> {
    value.serialize(&Serializer::json_compatible())
}

/// JS value to a Rust value, refusing anything of the wrong shape.
pub fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, Error> {
    serde_wasm_bindgen::from_value(value)
}
