//! `onAuthStateChange`: the subscriber list, the events, and the `Subscription` handle. A class
//! method (`subscription.unsubscribe()`) instead of a JS closure, so nothing is leaked or forgotten.
//! Knows nothing of the auth client: the client owns the [`Subscribers`] and notifies them.

use std::cell::{Cell, RefCell};
use std::rc::Weak;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};

/// The events this client emits (a subset of supabase-js's `AuthChangeEvent`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthChangeEvent {
    /// Once per subscription, with the session found at subscribe time.
    InitialSession,
    SignedIn,
    SignedOut,
    TokenRefreshed,
    MfaChallengeVerified,
}

impl AuthChangeEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            AuthChangeEvent::InitialSession => "INITIAL_SESSION",
            AuthChangeEvent::SignedIn => "SIGNED_IN",
            AuthChangeEvent::SignedOut => "SIGNED_OUT",
            AuthChangeEvent::TokenRefreshed => "TOKEN_REFRESHED",
            AuthChangeEvent::MfaChallengeVerified => "MFA_CHALLENGE_VERIFIED",
        }
    }
}

#[derive(Default)]
pub struct Subscribers {
    next_id: Cell<u32>,
    callbacks: RefCell<Vec<(u32, Function)>>,
}

impl Subscribers {
    pub fn add(&self, callback: Function) -> u32 {
        let id = self.next_id.get() + 1;
        self.next_id.set(id);
        self.callbacks.borrow_mut().push((id, callback));
        id
    }

    pub fn remove(&self, id: u32) {
        self.callbacks.borrow_mut().retain(|(key, _)| *key != id);
    }

    pub fn clear(&self) {
        self.callbacks.borrow_mut().clear();
    }

    pub fn get(&self, id: u32) -> Option<Function> {
        self.callbacks
            .borrow()
            .iter()
            .find(|(key, _)| *key == id)
            .map(|(_, callback)| callback.clone())
    }

    /// Calls every callback with `(event, session)`, in subscription order. Unlike auth-js, the
    /// promises async callbacks return are not awaited: a callback that calls back into auth
    /// (refresh, getSession during initialisation) can then never wait on itself. Throwing or
    /// rejecting callbacks are reported on the console and do not stop the others.
    pub fn notify(&self, event: AuthChangeEvent, session: &JsValue) {
        let callbacks: Vec<Function> = self
            .callbacks
            .borrow()
            .iter()
            .map(|(_, callback)| callback.clone())
            .collect();
        for callback in callbacks {
            call(&callback, event, session);
        }
    }
}

/// Calls one callback, reporting what it throws or rejects with.
pub fn call(callback: &Function, event: AuthChangeEvent, session: &JsValue) {
    match callback.call2(&JsValue::NULL, &event.as_str().into(), session) {
        Ok(result) => {
            if let Ok(promise) = result.dyn_into::<Promise>() {
                spawn_local(async move {
                    if let Err(error) = JsFuture::from(promise).await {
                        web_sys::console::error_1(&error);
                    }
                });
            }
        }
        Err(error) => web_sys::console::error_1(&error),
    }
}

/// What `onAuthStateChange` hands back (as `data.subscription`).
#[wasm_bindgen]
pub struct Subscription {
    id: u32,
    callback: Function,
    /// Weak: a subscription kept by the page does not keep a disposed client's subscribers alive.
    subscribers: Weak<Subscribers>,
}

impl Subscription {
    pub fn new(id: u32, callback: Function, subscribers: Weak<Subscribers>) -> Self {
        Subscription {
            id,
            callback,
            subscribers,
        }
    }
}

#[wasm_bindgen]
impl Subscription {
    /// Identifies the subscription within its client; not meant for application logic.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The registered callback.
    #[wasm_bindgen(getter, unchecked_return_type = "AuthStateChangeCallback")]
    pub fn callback(&self) -> Function {
        self.callback.clone()
    }

    /// Stops further events reaching the callback. Calling it again does nothing.
    pub fn unsubscribe(&self) {
        if let Some(subscribers) = self.subscribers.upgrade() {
            subscribers.remove(self.id);
        }
    }
}
