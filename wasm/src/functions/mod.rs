//! `client.functions`: `invoke(name, { body, headers, method, region, signal, timeout })` with
//! supabase-js's `{ data, error, response }` results. Core builds the request and classifies the
//! answer ([`geocache_core::functions`]); [`options`] reads the JS arguments, [`body`] tells the
//! body's kind and what goes to `fetch`, [`result`] reads the `Response` into `data` or an
//! error, and [`error`] makes the error objects.

mod body;
mod error;
mod options;
mod result;

use geocache_core::functions::invoke::invoke_request;
use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::error::ClientError;
use crate::transport::timer::Timeout;
use crate::transport::token_source::TokenSource;
use geocache_core::functions::{FunctionsFailure, InvokeArgumentError};
use geocache_core::ClientConfig;
use web_sys::{AbortController, AbortSignal};

/// The Edge Functions client of one `Client` (supabase-js's `supabase.functions`): the client's
/// configuration, and where the session's token comes from.
#[wasm_bindgen]
pub struct Functions {
    config: ClientConfig,
    token: TokenSource,
}

impl Functions {
    pub fn new(config: ClientConfig, token: TokenSource) -> Self {
        Functions { config, token }
    }
}

#[wasm_bindgen]
impl Functions {
    /// Calls Edge Function `name` (a function's name, optionally followed by `/path` the
    /// function reads): `POST` unless `options.method` says otherwise, with the signed-in user's
    /// token as bearer (without a session the key, except a publishable or secret key, which is
    /// not sent as a bearer at all). The body's `Content-Type` follows its kind unless
    /// `options.headers` names one: a string is `text/plain`, a Blob or ArrayBuffer
    /// `application/octet-stream`, a FormData its multipart type, anything else JSON.
    ///
    /// `options.timeout` (milliseconds) aborts the call, body included, when it runs longer;
    /// `options.signal` aborts it when the caller says so.
    ///
    /// Resolves to `{ data, error, response }`, never rejects for a failed call: `data` is read
    /// by the response's `Content-Type` (JSON, a Blob for octet-stream and PDF, the Response
    /// itself for an event stream, FormData for multipart, else text); `error` is a
    /// `FunctionsHttpError` (status outside 2xx) or `FunctionsRelayError` (`x-relay-error: true`)
    /// whose `context` is the Response, or a `FunctionsFetchError` whose `context` is what fetch
    /// threw. Rejects with a TypeError (`invalid_argument`) only for arguments that cannot make a
    /// request: a name that is no function name, an unknown method, headers that are not strings.
    #[wasm_bindgen(unchecked_return_type = "FunctionsResponse")]
    pub async fn invoke(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "FunctionInvokeOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let name = name.as_string().ok_or_else(|| ClientError::Argument {
            name: "name",
            reason: "expected a string".to_owned(),
        })?;
        let options = options::read(&options)?;
        let session_token = (self.token)().await;
        let request = invoke_request(&self.config, session_token.as_deref(), &name, &options.core)
            .map_err(|error| ClientError::Argument {
                name: match error {
                    InvokeArgumentError::Method(_) => "options",
                    InvokeArgumentError::Name(_) | InvokeArgumentError::PathSegment(_) => "name",
                },
                reason: error.to_string(),
            })?;
        let init = Object::new();
        let headers = Object::new();
        for (header, value) in &request.headers {
            set(&headers, header, &value.into());
        }
        set(&init, "method", &request.method.into());
        set(&init, "headers", &headers);
        if let Some(body) = body::fetch_body(&options.body, options.core.body)? {
            set(&init, "body", &body);
        }
        // Kept until the body has been read: the timeout covers it too, as in supabase-js.
        let _deadline = match options.timeout {
            Some(timeout) => {
                let controller = AbortController::new().map_err(internal)?;
                let abort = abort_function(&controller)?;
                let forwarded = match &options.signal {
                    Some(signal) => Some(Forward::new(signal.unchecked_ref(), abort.clone())?),
                    None => None,
                };
                set(&init, "signal", &controller.signal());
                Some((Timeout::new(&abort, timeout.ms()), forwarded))
            }
            None => {
                if let Some(signal) = &options.signal {
                    set(&init, "signal", signal);
                }
                None
            }
        };
        let response = match fetch(&request.url, &init).await {
            Ok(response) => response,
            Err(thrown) => {
                return Ok(result::failed(
                    error::functions_error(FunctionsFailure::Fetch, &thrown),
                    None,
                ))
            }
        };
        Ok(result::read(response).await)
    }
}

/// The caller's signal aborting the call's own controller (which the timeout aborts too), until
/// dropped: a signal the caller keeps for many calls does not collect a listener per call.
struct Forward {
    signal: AbortSignal,
    abort: Function,
}

impl Forward {
    fn new(signal: &AbortSignal, abort: Function) -> Result<Forward, ClientError> {
        if signal.aborted() {
            abort.call0(&JsValue::UNDEFINED).map_err(internal)?;
        }
        signal
            .add_event_listener_with_callback("abort", &abort)
            .map_err(internal)?;
        Ok(Forward {
            signal: signal.clone(),
            abort,
        })
    }
}

impl Drop for Forward {
    fn drop(&mut self) {
        // Removing a listener that was added cannot fail.
        let _ = self
            .signal
            .remove_event_listener_with_callback("abort", &self.abort);
    }
}

/// A failure of the browser's own APIs (creating a controller, adding a listener): a bug here.
fn internal(error: JsValue) -> ClientError {
    ClientError::Internal(String::from(js_sys::Error::from(error).message()))
}

/// `controller.abort()` as a plain function for a timer or an event listener to call. Its first
/// argument is bound to `undefined`: a listener's event must not become the abort reason, so the
/// call ends with an `AbortError` as in supabase-js.
fn abort_function(controller: &AbortController) -> Result<Function, ClientError> {
    let abort: Function = Reflect::get(controller, &"abort".into())
        .and_then(JsCast::dyn_into)
        .map_err(internal)?;
    let bound: JsValue = abort.bind1(controller, &JsValue::UNDEFINED).into();
    Ok(bound.unchecked_into())
}

/// Sets a property of a fresh plain object (which cannot fail).
fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &key.into(), value);
}

/// The global `fetch` (window or worker), called with the init object; `Err` is what it threw
/// or rejected with.
async fn fetch(url: &str, init: &Object) -> Result<web_sys::Response, JsValue> {
    let global = js_sys::global();
    let fetch: Function = Reflect::get(&global, &"fetch".into())?.dyn_into()?;
    let promise: Promise = fetch.call2(&global, &url.into(), init)?.dyn_into()?;
    JsFuture::from(promise).await?.dyn_into()
}
