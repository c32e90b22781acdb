//! The one conversion from core errors to JS: a real `Error` (never a string) whose `name`,
//! `code` and, for call failures, `status`, `retryable`, `details`, `hint`, schema fields, (for
//! `listEntries`) `page` and (for `signLogbook`) `outcome` and `idempotencyKey` are own properties, so callers can branch on them. Auth errors look like auth-js's error classes:
//! `name` (`AuthApiError`, `AuthRetryableFetchError`, …), `status`, `code` and `__isAuthError`, so
//! supabase-js's `isAuthError` and friends recognise them.

#[cfg(feature = "auth")]
use geocache_core::auth::AuthError;
#[cfg(feature = "realtime")]
use geocache_core::realtime::RealtimeError;
#[cfg(feature = "rest")]
use geocache_core::rest::pager::PageError;
#[cfg(feature = "rest")]
use geocache_core::rest::signing::SignError;
use geocache_core::ConfigError;
#[cfg(feature = "rest")]
use geocache_core::{LogbookError, RequestTimeoutError};
use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// Everything an exported function can reject or throw with.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[cfg(feature = "rest")]
    #[error(transparent)]
    Logbook(#[from] LogbookError),
    /// A page of `listEntries` that failed: its error, and which page (from 1).
    #[cfg(feature = "rest")]
    #[error(transparent)]
    Page(#[from] PageError),
    /// A failed `signLogbook`: its error, whether the entry may be stored, and its key (boxed:
    /// it is the largest variant).
    #[cfg(feature = "rest")]
    #[error(transparent)]
    Sign(Box<SignError>),
    #[cfg(feature = "auth")]
    #[error(transparent)]
    Auth(#[from] AuthError),
    /// A realtime call refused, or the reason of a CHANNEL_ERROR status.
    #[cfg(feature = "realtime")]
    #[error(transparent)]
    Realtime(#[from] RealtimeError),
    /// An argument of the wrong shape, e.g. `signLogbook({name: 1})`.
    #[error("invalid {name}: {reason}")]
    Argument { name: &'static str, reason: String },
    /// A result could not be converted to JS: a bug in this crate, reported rather than panicking.
    #[error("internal error: {0}")]
    Internal(String),
}

#[cfg(feature = "rest")]
impl From<SignError> for ClientError {
    fn from(error: SignError) -> Self {
        ClientError::Sign(Box::new(error))
    }
}

/// A bad `requestTimeoutMs` is a bad `options` argument.
#[cfg(feature = "rest")]
impl From<RequestTimeoutError> for ClientError {
    fn from(error: RequestTimeoutError) -> Self {
        ClientError::Argument {
            name: "options",
            reason: error.to_string(),
        }
    }
}

#[cfg(feature = "auth")]
impl ClientError {
    pub fn argument(name: &'static str, error: serde_wasm_bindgen::Error) -> Self {
        ClientError::Argument {
            name,
            reason: reason(error),
        }
    }

    pub fn internal(error: serde_wasm_bindgen::Error) -> Self {
        ClientError::Internal(reason(error))
    }
}

/// The message of the JS `Error` serde-wasm-bindgen wraps, without its `Error: ` prefix.
#[cfg(feature = "auth")]
fn reason(error: serde_wasm_bindgen::Error) -> String {
    String::from(js_sys::Error::from(JsValue::from(error)).message())
}

impl From<ClientError> for JsValue {
    fn from(error: ClientError) -> JsValue {
        let message = error.to_string();
        let properties: Vec<(&str, JsValue)> = match &error {
            ClientError::Config(config) => vec![
                ("name", "ConfigError".into()),
                ("code", config.code().into()),
            ],
            #[cfg(feature = "rest")]
            ClientError::Logbook(logbook) => logbook_properties(logbook),
            #[cfg(feature = "rest")]
            ClientError::Page(page) => {
                let mut properties = logbook_properties(&page.error);
                properties.push(("page", page.page.into()));
                properties
            }
            #[cfg(feature = "rest")]
            ClientError::Sign(sign) => {
                let mut properties = logbook_properties(&sign.error);
                properties.push(("outcome", sign.outcome.as_str().into()));
                properties.push(("idempotencyKey", sign.key.as_str().into()));
                properties
            }
            #[cfg(feature = "auth")]
            ClientError::Auth(auth) => auth_properties(auth),
            #[cfg(feature = "realtime")]
            ClientError::Realtime(realtime) => vec![
                ("name", "RealtimeError".into()),
                ("code", realtime.code().into()),
            ],
            ClientError::Argument { .. } => vec![("code", "invalid_argument".into())],
            ClientError::Internal(_) => vec![
                ("name", "InternalError".into()),
                ("code", "internal_error".into()),
            ],
        };
        let js_error: JsValue = match error {
            ClientError::Argument { .. } => js_sys::TypeError::new(&message).into(),
            _ => js_sys::Error::new(&message).into(),
        };
        for (key, value) in properties {
            // Defining a property on a fresh, unfrozen Error object cannot fail.
            let _ = Reflect::set(&js_error, &key.into(), &value);
        }
        js_error
    }
}

/// auth-js leaves `status` and `code` undefined where it has none; so does this.
#[cfg(feature = "auth")]
fn auth_properties(error: &AuthError) -> Vec<(&'static str, JsValue)> {
    let mut properties = vec![
        ("name", error.name().into()),
        (
            "status",
            error.status().map_or(JsValue::UNDEFINED, JsValue::from),
        ),
        (
            "code",
            error.code().map_or(JsValue::UNDEFINED, JsValue::from),
        ),
        ("retryable", error.retryable().into()),
        ("__isAuthError", true.into()),
    ];
    if let AuthError::WeakPassword { reasons, .. } = error {
        let list: js_sys::Array = reasons.iter().map(|r| JsValue::from(r.as_str())).collect();
        properties.push(("reasons", list.into()));
    }
    properties
}

#[cfg(feature = "rest")]
fn logbook_properties(error: &LogbookError) -> Vec<(&'static str, JsValue)> {
    let optional = |value: Option<&str>| value.map_or(JsValue::NULL, JsValue::from);
    let mut properties = vec![
        ("name", "LogbookError".into()),
        ("code", error.code().into()),
        ("status", error.status().into()),
        ("retryable", error.retryable().into()),
        ("details", optional(error.details())),
        ("hint", optional(error.hint())),
    ];
    if let Some(schema) = error
        .schema()
        .filter(|schema| schema.code() == "schema_mismatch")
    {
        properties.extend([
            (
                "index",
                schema
                    .index()
                    .map_or(JsValue::NULL, |index| (index as f64).into()),
            ),
            ("field", optional(schema.field())),
            ("expected", optional(schema.expected())),
            ("found", optional(schema.found())),
        ]);
    }
    properties
}
