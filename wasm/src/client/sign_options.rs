//! `signLogbook`'s options and its key: the caller's `idempotencyKey`, validated, or a new random
//! one from the platform's `crypto.getRandomValues` (window or worker).

use geocache_core::rest::sign_key::SignKey;
use js_sys::{Function, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

use crate::error::ClientError;

/// The key to sign with: `options.idempotencyKey` when given, else a new random one. `options`
/// is `undefined`, `null` or an object whose `idempotencyKey` is absent or a UUID string;
/// anything else is an `invalid_argument` TypeError, before any request is made.
pub fn sign_key(options: &JsValue) -> Result<SignKey, ClientError> {
    let invalid = |reason: String| ClientError::Argument {
        name: "options",
        reason,
    };
    if options.is_undefined() || options.is_null() {
        return random_key();
    }
    if !options.is_object() {
        return Err(invalid("expected an object".to_owned()));
    }
    let value = Reflect::get(options, &"idempotencyKey".into())
        .map_err(|_| invalid("idempotencyKey cannot be read".to_owned()))?;
    if value.is_undefined() {
        return random_key();
    }
    let text = value
        .as_string()
        .ok_or_else(|| invalid("idempotencyKey is not a string".to_owned()))?;
    SignKey::parse(&text).map_err(|error| invalid(error.to_string()))
}

/// A version 4 UUID from 16 bytes of `crypto.getRandomValues`.
fn random_key() -> Result<SignKey, ClientError> {
    let unavailable = |_| ClientError::Internal("crypto.getRandomValues is unavailable".to_owned());
    let crypto = Reflect::get(&js_sys::global(), &"crypto".into()).map_err(unavailable)?;
    let fill: Function = Reflect::get(&crypto, &"getRandomValues".into())
        .and_then(|fill| fill.dyn_into())
        .map_err(unavailable)?;
    let array = Uint8Array::new_with_length(16);
    fill.call1(&crypto, &array).map_err(unavailable)?;
    let mut bytes = [0u8; 16];
    array.copy_to(&mut bytes);
    Ok(SignKey::from_random_bytes(bytes))
}
