//! supabase-js's result convention: auth calls resolve to `{ data, error }` and never reject for
//! auth failures; `error` is a real `Error` (converted in `crate::error`) or `null`.

use geocache_core::auth::{AuthError, Session, User, WeakPassword};
use js_sys::{Object, Reflect};
use serde::Serialize;
use wasm_bindgen::JsValue;

use crate::error::ClientError;
use crate::js;

/// `{ data, error: null }` on success, `{ data: data_on_error, error }` on failure.
pub fn respond<T: Serialize>(
    result: Result<T, AuthError>,
    data_on_error: impl Serialize,
) -> Result<JsValue, ClientError> {
    let (data, error) = match result {
        Ok(data) => (js::to_js(&data), JsValue::NULL),
        Err(error) => (js::to_js(&data_on_error), ClientError::Auth(error).into()),
    };
    let data = data.map_err(ClientError::internal)?;
    Ok(object(&[("data", data), ("error", error)]))
}

/// `{ error }` (signOut's shape).
pub fn error_only(result: Result<(), AuthError>) -> JsValue {
    let error = match result {
        Ok(()) => JsValue::NULL,
        Err(error) => ClientError::Auth(error).into(),
    };
    object(&[("error", error)])
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

/// `{ user, session }`: signUp, setSession, refreshSession; both `null` on failure.
#[derive(Serialize, Default)]
pub struct UserAndSession<'a> {
    pub user: Option<&'a User>,
    pub session: Option<&'a Session>,
    /// Only a password sign-in reports it, and only when the server sent one.
    #[serde(rename = "weakPassword", skip_serializing_if = "Option::is_none")]
    pub weak_password: Option<&'a WeakPassword>,
}

impl<'a> UserAndSession<'a> {
    pub fn of(session: &'a Session) -> Self {
        UserAndSession {
            user: Some(&session.user),
            session: Some(session),
            weak_password: None,
        }
    }
}

/// `{ session }`: getSession.
#[derive(Serialize)]
pub struct SessionData<'a> {
    pub session: Option<&'a Session>,
}

/// `{ user }`: getUser.
#[derive(Serialize)]
pub struct UserData<'a> {
    pub user: Option<&'a User>,
}

/// `data: null`, the failure shape of the MFA calls.
pub const NO_DATA: Option<()> = None;
