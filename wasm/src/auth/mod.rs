//! `client.auth`: sessions, auto-refresh and MFA with supabase-js's API and `{ data, error }`
//! results. [`Auth`] is a thin handle on the client's shared [`AuthClient`].

mod auto_refresh;
mod client;
mod clock;
mod events;
mod mfa;
mod refresh;
mod result;
mod session_store;
mod storage;

use std::rc::Rc;

use geocache_core::auth::{PasswordCredentials, SignOutScope, SignUpCredentials};
use js_sys::{Function, Promise};
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;

pub use auto_refresh::TICK_FAILED_MESSAGE;
pub use client::AuthClient;
pub use events::{AuthChangeEvent, Subscription};
pub use mfa::Mfa;

use crate::error::ClientError;
use crate::js;
use events::call;
use result::{error_only, object, respond, SessionData, UserAndSession, UserData};

/// The auth client of one `Client` (supabase-js's `supabase.auth`).
#[wasm_bindgen]
pub struct Auth {
    client: Rc<AuthClient>,
}

impl Auth {
    pub fn new(client: Rc<AuthClient>) -> Self {
        Auth { client }
    }

    /// The shared auth state.
    pub fn client(&self) -> &Rc<AuthClient> {
        &self.client
    }
}

/// `setSession`'s argument.
#[derive(Deserialize)]
struct Tokens {
    access_token: String,
    refresh_token: String,
}

/// `refreshSession`'s optional argument.
#[derive(Deserialize)]
struct RefreshToken {
    refresh_token: String,
}

/// `signOut`'s optional argument.
#[derive(Deserialize, Default)]
struct SignOutOptions {
    #[serde(default)]
    scope: SignOutScope,
}

fn argument<T: serde::de::DeserializeOwned>(
    name: &'static str,
    value: JsValue,
) -> Result<T, ClientError> {
    js::from_js(value).map_err(|error| ClientError::argument(name, error))
}

/// `undefined` and `null` as absent, anything else read as `T`.
fn optional<T: serde::de::DeserializeOwned>(
    name: &'static str,
    value: JsValue,
) -> Result<Option<T>, ClientError> {
    if value.is_undefined() || value.is_null() {
        Ok(None)
    } else {
        argument(name, value).map(Some)
    }
}

#[wasm_bindgen]
impl Auth {
    /// `auth.mfa`: multi-factor authentication.
    #[wasm_bindgen(getter)]
    pub fn mfa(&self) -> Mfa {
        Mfa::new(Rc::clone(&self.client))
    }

    /// Creates a user with an email (or phone) and password. With auto-confirm the user is
    /// signed in (SIGNED_IN); otherwise `session` is `null` until the email is confirmed.
    #[wasm_bindgen(js_name = signUp, unchecked_return_type = "AuthResponse")]
    pub async fn sign_up(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SignUpWithPasswordCredentials")]
        credentials: JsValue,
    ) -> Result<JsValue, ClientError> {
        let credentials: SignUpCredentials = argument("credentials", credentials)?;
        let result = self.client.sign_up(&credentials).await;
        let response = result.as_ref().map(|response| UserAndSession {
            user: response.user.as_ref(),
            session: response.session.as_ref(),
            weak_password: None,
        });
        respond(response.map_err(Clone::clone), UserAndSession::default())
    }

    /// Signs in with an email (or phone) and password (SIGNED_IN).
    #[wasm_bindgen(
        js_name = signInWithPassword,
        unchecked_return_type = "AuthTokenResponsePassword"
    )]
    pub async fn sign_in_with_password(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SignInWithPasswordCredentials")]
        credentials: JsValue,
    ) -> Result<JsValue, ClientError> {
        let credentials: PasswordCredentials = argument("credentials", credentials)?;
        let result = self.client.sign_in_with_password(&credentials).await;
        let response = result.as_ref().map(|response| UserAndSession {
            user: response.user.as_ref(),
            session: response.session.as_ref(),
            weak_password: response.weak_password.as_ref(),
        });
        respond(response.map_err(Clone::clone), UserAndSession::default())
    }

    /// Signs out (`scope`: `global` by default, `local` or `others`); SIGNED_OUT unless `others`.
    #[wasm_bindgen(js_name = signOut, unchecked_return_type = "{ error: AuthError | null }")]
    pub async fn sign_out(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "SignOutOptions")] options: JsValue,
    ) -> Result<JsValue, ClientError> {
        let options: SignOutOptions = optional("options", options)?.unwrap_or_default();
        Ok(error_only(self.client.sign_out(options.scope).await))
    }

    /// The stored session, refreshed first when it expires within 90 s.
    #[wasm_bindgen(js_name = getSession, unchecked_return_type = "AuthSessionResponse")]
    pub async fn get_session(&self) -> Result<JsValue, ClientError> {
        let result = self.client.get_session().await;
        let data = result.as_ref().map(|session| SessionData {
            session: session.as_ref(),
        });
        respond(data.map_err(Clone::clone), SessionData { session: None })
    }

    /// The user as the server knows them, for `jwt` or the session's access token.
    #[wasm_bindgen(js_name = getUser, unchecked_return_type = "UserResponse")]
    pub async fn get_user(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "string")] jwt: Option<String>,
    ) -> Result<JsValue, ClientError> {
        let jwt = jwt.filter(|jwt| !jwt.is_empty());
        let result = self.client.get_user(jwt.as_deref()).await;
        let data = result.as_ref().map(|user| UserData { user: Some(user) });
        respond(data.map_err(Clone::clone), UserData { user: None })
    }

    /// Adopts tokens obtained elsewhere (SIGNED_IN, or TOKEN_REFRESHED when the access token
    /// had expired).
    #[wasm_bindgen(js_name = setSession, unchecked_return_type = "AuthResponse")]
    pub async fn set_session(
        &self,
        #[wasm_bindgen(
            js_name = currentSession,
            unchecked_param_type = "{ access_token: string; refresh_token: string }"
        )]
        tokens: JsValue,
    ) -> Result<JsValue, ClientError> {
        let tokens: Tokens = argument("session", tokens)?;
        let result = self
            .client
            .set_session(&tokens.access_token, &tokens.refresh_token)
            .await;
        respond(
            result
                .as_ref()
                .map(UserAndSession::of)
                .map_err(Clone::clone),
            UserAndSession::default(),
        )
    }

    /// A new session now, whatever the expiry (TOKEN_REFRESHED). Concurrent calls share one
    /// request.
    #[wasm_bindgen(js_name = refreshSession, unchecked_return_type = "AuthResponse")]
    pub async fn refresh_session(
        &self,
        #[wasm_bindgen(
            js_name = currentSession,
            unchecked_optional_param_type = "{ refresh_token: string }"
        )]
        current_session: JsValue,
    ) -> Result<JsValue, ClientError> {
        let current: Option<RefreshToken> = optional("currentSession", current_session)?;
        let result = self
            .client
            .refresh_session(current.map(|current| current.refresh_token))
            .await;
        respond(
            result
                .as_ref()
                .map(UserAndSession::of)
                .map_err(Clone::clone),
            UserAndSession::default(),
        )
    }

    /// Runs the refresh ticker from now on, whatever the page visibility (you now own it).
    /// Resolves at once; a promise, as supabase-js's.
    #[wasm_bindgen(js_name = startAutoRefresh, unchecked_return_type = "Promise<void>")]
    pub fn start_auto_refresh(&self) -> Promise {
        self.client.start_auto_refresh();
        Promise::resolve(&JsValue::UNDEFINED)
    }

    /// Stops the refresh ticker and the visibility handling (you now own it).
    #[wasm_bindgen(js_name = stopAutoRefresh, unchecked_return_type = "Promise<void>")]
    pub fn stop_auto_refresh(&self) -> Promise {
        self.client.stop_auto_refresh();
        Promise::resolve(&JsValue::UNDEFINED)
    }

    /// Calls `callback(event, session)` on every auth event, starting with INITIAL_SESSION.
    #[wasm_bindgen(
        js_name = onAuthStateChange,
        unchecked_return_type = "{ data: { subscription: Subscription } }"
    )]
    pub fn on_auth_state_change(
        &self,
        #[wasm_bindgen(unchecked_param_type = "AuthStateChangeCallback")] callback: JsValue,
    ) -> Result<JsValue, ClientError> {
        let callback: Function = callback.dyn_into().map_err(|_| ClientError::Argument {
            name: "callback",
            reason: "expected a function".into(),
        })?;
        let id = self.client.subscribers().add(callback.clone());
        let client = Rc::clone(&self.client);
        spawn_local(async move {
            let session = client.get_session().await;
            // Unsubscribed meanwhile: nothing to tell.
            let Some(callback) = client.subscribers().get(id) else {
                return;
            };
            let session = match session {
                Ok(Some(session)) => js::to_js(&session).unwrap_or(JsValue::NULL),
                Ok(None) => JsValue::NULL,
                Err(error) => {
                    web_sys::console::warn_1(&ClientError::Auth(error).into());
                    JsValue::NULL
                }
            };
            call(&callback, AuthChangeEvent::InitialSession, &session);
        });
        let subscription =
            Subscription::new(id, callback, Rc::downgrade(self.client.subscribers()));
        let subscription = object(&[("subscription", subscription.into())]);
        Ok(object(&[("data", subscription)]))
    }

    /// Removes the visibility listener and refresh timers and forgets all subscribers. Safe to
    /// call more than once; in-flight requests still complete. Resolves at once.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn dispose(&self) -> Promise {
        self.client.dispose();
        Promise::resolve(&JsValue::UNDEFINED)
    }
}
