//! `{ data, error, response }` from a `Response`, as supabase-js reads it: core says whether it
//! is a relay error, an HTTP error or data of which kind, and the matching `Response` method
//! reads the data. A body that cannot be read that way (JSON that does not parse, a connection
//! lost mid-body) is the error, with no `response`, as in supabase-js.

use geocache_core::functions::response::{classify, DataKind, Outcome};
use js_sys::{Object, Promise, Reflect};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use web_sys::Response;

use crate::functions::error::functions_error;

/// The result object of a call that failed with `error`.
pub fn failed(error: JsValue, response: Option<&Response>) -> JsValue {
    object(JsValue::NULL, error, response)
}

fn object(data: JsValue, error: JsValue, response: Option<&Response>) -> JsValue {
    let result = Object::new();
    let response = response.map_or(JsValue::UNDEFINED, |response| {
        let value: &JsValue = response.as_ref();
        value.clone()
    });
    for (key, value) in [("data", data), ("error", error), ("response", response)] {
        // Setting a property of a fresh plain object cannot fail.
        let _ = Reflect::set(&result, &key.into(), &value);
    }
    result.into()
}

/// Reads `response` into the call's result.
pub async fn read(response: Response) -> JsValue {
    let headers = response.headers();
    let header = |name: &str| headers.get(name).ok().flatten();
    let outcome = classify(
        response.status(),
        header("x-relay-error").as_deref(),
        header("content-type").as_deref(),
    );
    let kind = match outcome {
        Outcome::Failed(failure) => {
            return failed(functions_error(failure, &response), Some(&response))
        }
        Outcome::Data(kind) => kind,
    };
    let reading: Result<Promise, JsValue> = match kind {
        // The Response itself (`Response::clone` would be JS's `clone()`, a second body).
        DataKind::Stream => {
            let data: &JsValue = response.as_ref();
            return object(data.clone(), JsValue::NULL, Some(&response));
        }
        DataKind::Json => response.json(),
        DataKind::Blob => response.blob(),
        DataKind::FormData => response.form_data(),
        DataKind::Text => response.text(),
    };
    let data = match reading {
        Ok(promise) => JsFuture::from(promise).await,
        Err(thrown) => Err(thrown),
    };
    match data {
        Ok(data) => object(data, JsValue::NULL, Some(&response)),
        Err(thrown) => failed(thrown, None),
    }
}
