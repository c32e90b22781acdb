//! The body's kind, told from the JS value as supabase-js tells it, and the value `fetch` gets.

use geocache_core::functions::invoke::BodyKind;
use wasm_bindgen::{JsCast, JsValue};

use crate::error::ClientError;

/// A falsy value is no body; a string is text; a Blob (a File too) or an ArrayBuffer is binary;
/// a FormData is multipart; anything else is JSON.
pub fn kind(body: &JsValue) -> BodyKind {
    if body.is_falsy() {
        BodyKind::None
    } else if body.is_string() {
        BodyKind::Text
    } else if body.has_type::<web_sys::Blob>() || body.has_type::<js_sys::ArrayBuffer>() {
        BodyKind::Binary
    } else if body.has_type::<web_sys::FormData>() {
        BodyKind::FormData
    } else {
        BodyKind::Json
    }
}

/// What `fetch` sends: `JSON.stringify(body)` for JSON, the value itself otherwise, nothing for
/// no body. A value `JSON.stringify` throws on (a cycle, a BigInt) is a bad argument.
pub fn fetch_body(body: &JsValue, kind: BodyKind) -> Result<Option<JsValue>, ClientError> {
    match kind {
        BodyKind::None => Ok(None),
        kind if kind.is_serialized_as_json() => js_sys::JSON::stringify(body)
            .map(|text| Some(text.into()))
            .map_err(|thrown| ClientError::Argument {
                name: "options",
                reason: format!(
                    "body cannot be sent as JSON: {}",
                    String::from(js_sys::Error::from(thrown).message())
                ),
            }),
        _ => Ok(Some(body.clone())),
    }
}
