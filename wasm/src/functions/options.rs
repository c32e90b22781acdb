//! `invoke`'s second argument: `undefined`, `null`, or an object whose `headers` is a plain
//! object of strings, `method` and `region` strings, `body` anything, `signal` an AbortSignal and
//! `timeout` a whole number of milliseconds from 1 to 2^31 - 1.

use geocache_core::functions::invoke::InvokeOptions;
use geocache_core::RequestTimeout;
use js_sys::{Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::error::ClientError;
use crate::functions::body;

/// The options, read.
pub struct Options {
    /// What core builds the request from (the body only as its kind).
    pub core: InvokeOptions,
    /// The caller's body value, sent as [`body::fetch_body`] says.
    pub body: JsValue,
    pub signal: Option<JsValue>,
    /// Aborts the call (request and body) when it runs longer; none by default, as in
    /// supabase-js (an event stream may run for as long as it likes).
    pub timeout: Option<RequestTimeout>,
}

fn invalid(reason: impl Into<String>) -> ClientError {
    ClientError::Argument {
        name: "options",
        reason: reason.into(),
    }
}

/// A property, `None` when absent (`undefined` or `null`); a throwing getter is a bad argument.
fn property(object: &JsValue, key: &str) -> Result<Option<JsValue>, ClientError> {
    let value =
        Reflect::get(object, &key.into()).map_err(|_| invalid(format!("{key} cannot be read")))?;
    Ok((!value.is_undefined() && !value.is_null()).then_some(value))
}

fn string(object: &JsValue, key: &str) -> Result<Option<String>, ClientError> {
    property(object, key)?
        .map(|value| {
            value
                .as_string()
                .ok_or_else(|| invalid(format!("{key} is not a string")))
        })
        .transpose()
}

pub fn read(options: &JsValue) -> Result<Options, ClientError> {
    if options.is_undefined() || options.is_null() {
        return Ok(Options {
            core: InvokeOptions::default(),
            body: JsValue::UNDEFINED,
            signal: None,
            timeout: None,
        });
    }
    if !options.is_object() {
        return Err(invalid("expected an object"));
    }
    let headers = match property(options, "headers")? {
        None => Vec::new(),
        Some(headers) if headers.is_object() => headers_of(&headers)?,
        Some(_) => return Err(invalid("headers is not an object")),
    };
    let body = property(options, "body")?.unwrap_or(JsValue::UNDEFINED);
    let signal = property(options, "signal")?;
    if let Some(signal) = &signal {
        if !signal.has_type::<web_sys::AbortSignal>() {
            return Err(invalid("signal is not an AbortSignal"));
        }
    }
    let timeout = property(options, "timeout")?
        .map(|value| {
            value
                .as_f64()
                .and_then(RequestTimeout::from_ms)
                .ok_or_else(|| {
                    invalid("timeout is not a whole number of milliseconds from 1 to 2147483647")
                })
        })
        .transpose()?;
    Ok(Options {
        core: InvokeOptions {
            method: string(options, "method")?,
            headers,
            body: body::kind(&body),
            region: string(options, "region")?,
        },
        body,
        signal,
        timeout,
    })
}

/// A plain object's own enumerable string-valued properties, in order.
fn headers_of(headers: &JsValue) -> Result<Vec<(String, String)>, ClientError> {
    let entries = Object::entries(headers.unchecked_ref());
    entries
        .iter()
        .map(|entry| {
            let pair: js_sys::Array = entry.unchecked_into();
            let name = pair.get(0).as_string().unwrap_or_default();
            let value = pair
                .get(1)
                .as_string()
                .ok_or_else(|| invalid(format!("header {name} is not a string")))?;
            Ok((name, value))
        })
        .collect()
}
