//! `createClient`'s third argument, in both builds: `undefined` or `null` for the defaults, or
//! an object. The npm build reads it whole with serde (core's `ClientOptions`: `auth` and
//! `requestTimeoutMs`); the page's build has no auth and no serde-wasm-bindgen, and reads its one
//! property with `Reflect`. Core validates the value in both.

use geocache_core::RequestTimeout;
#[cfg(not(feature = "auth"))]
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;

#[cfg(feature = "auth")]
use geocache_core::auth::{AuthOptions, ClientOptions};

use crate::error::ClientError;

/// What the client is built with.
#[derive(Debug, Default)]
pub struct Options {
    pub request_timeout: RequestTimeout,
    #[cfg(feature = "auth")]
    pub auth: AuthOptions,
}

impl Options {
    /// Reads `options`; a TypeError (`invalid_argument`) when it is not an object or a value in
    /// it is wrong.
    pub fn read(options: JsValue) -> Result<Self, ClientError> {
        if options.is_undefined() || options.is_null() {
            return Ok(Options::default());
        }
        Self::read_object(options)
    }

    #[cfg(feature = "auth")]
    fn read_object(options: JsValue) -> Result<Self, ClientError> {
        let options: ClientOptions =
            crate::js::from_js(options).map_err(|error| ClientError::argument("options", error))?;
        Ok(Options {
            request_timeout: options.request_timeout()?,
            auth: options.auth,
        })
    }

    #[cfg(not(feature = "auth"))]
    fn read_object(options: JsValue) -> Result<Self, ClientError> {
        if !options.is_object() {
            return Err(invalid("expected an object".into()));
        }
        // A getter may throw; its error becomes the reason.
        let value = js_sys::Reflect::get(&options, &"requestTimeoutMs".into())
            .map_err(|error| invalid(js_sys::Error::from(error).message().into()))?;
        if value.is_undefined() || value.is_null() {
            return Ok(Options::default());
        }
        let request_timeout = value.as_f64().and_then(RequestTimeout::from_ms);
        // JS names the value (`String(value)`, or its type), so no float printer is linked in.
        let found = || match value.as_f64() {
            Some(_) => value
                .unchecked_ref::<js_sys::Number>()
                .to_string_with_radix(10)
                .map(String::from)
                .expect("10 is a valid radix"),
            None => format!(
                "a {}",
                value
                    .js_typeof()
                    .as_string()
                    .expect("typeof always gives a string")
            ),
        };
        Ok(Options {
            request_timeout: request_timeout
                .ok_or_else(|| geocache_core::RequestTimeoutError { found: found() })?,
        })
    }
}

#[cfg(not(feature = "auth"))]
fn invalid(reason: String) -> ClientError {
    ClientError::Argument {
        name: "options",
        reason,
    }
}
