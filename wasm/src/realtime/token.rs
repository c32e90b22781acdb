//! The access token channels join with: the signed-in user's (auth build), else the key. The
//! auth build also follows the session: every SIGNED_IN, TOKEN_REFRESHED or SIGNED_OUT reaches
//! the state machine, which pushes `access_token` to joined channels when it changed.

#[cfg(feature = "auth")]
use std::rc::{Rc, Weak};

#[cfg(feature = "auth")]
use wasm_bindgen::prelude::*;

#[cfg(feature = "auth")]
use super::state::RealtimeState;
#[cfg(feature = "auth")]
use crate::auth::AuthClient;

/// Where the current access token comes from.
#[derive(Clone, Default)]
pub struct TokenSource {
    #[cfg(feature = "auth")]
    auth: Option<Rc<AuthClient>>,
}

impl TokenSource {
    #[cfg(feature = "auth")]
    pub fn new(auth: Rc<AuthClient>) -> Self {
        TokenSource { auth: Some(auth) }
    }

    /// The session's access token (refreshed first when close to expiry), `None` while
    /// nobody is signed in.
    pub async fn current(&self) -> Option<String> {
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.auth {
            return auth.access_token().await;
        }
        None
    }
}

/// An `onAuthStateChange` subscriber owned by the realtime client: dropping it invalidates the
/// JS function the auth client holds (which the auth client's own dispose forgets).
#[cfg(feature = "auth")]
pub struct SessionFollower {
    _callback: Closure<dyn FnMut(JsValue, JsValue)>,
}

#[cfg(feature = "auth")]
impl SessionFollower {
    pub fn new(auth: &AuthClient, realtime: Weak<RealtimeState>) -> Self {
        let callback = Closure::<dyn FnMut(JsValue, JsValue)>::new(
            move |_event: JsValue, session: JsValue| {
                let Some(realtime) = realtime.upgrade() else {
                    return;
                };
                let token = if session.is_object() {
                    js_sys::Reflect::get(&session, &"access_token".into())
                        .ok()
                        .and_then(|token| token.as_string())
                } else {
                    None
                };
                realtime.run(|machine, _| ((), machine.set_access_token(token)));
            },
        );
        auth.subscribers().add(
            callback
                .as_ref()
                .unchecked_ref::<js_sys::Function>()
                .clone(),
        );
        SessionFollower {
            _callback: callback,
        }
    }
}
