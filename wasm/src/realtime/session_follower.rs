//! A `Client` of the auth build follows the session: every SIGNED_IN, TOKEN_REFRESHED or
//! SIGNED_OUT reaches the state machine, which pushes `access_token` to joined channels when it
//! changed. (Channels join with the client's token source: the session's token, else the key.)

use std::rc::Weak;

use wasm_bindgen::prelude::*;

use super::state::RealtimeState;
use crate::auth::AuthClient;

/// An `onAuthStateChange` subscriber owned by the realtime client: dropping it invalidates the
/// JS function the auth client holds (which the auth client's own dispose forgets).
pub struct SessionFollower {
    _callback: Closure<dyn FnMut(JsValue, JsValue)>,
}

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
