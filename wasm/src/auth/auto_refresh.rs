//! The auto-refresh machinery: one object owns the `visibilitychange` listener and the ticker's
//! interval and first timeout, all gloo guards, so `dispose()` or dropping the client removes
//! them. The guards' callbacks hold only a `Weak` reference to the client: no cycle, no leak, no
//! `Closure::forget`. Core's [`AutoRefreshControl`] says what to do; this carries it out.

use std::rc::Rc;

use geocache_core::auth::{Action, AuthError, AutoRefreshControl, TickDecision, Visibility};
use gloo_events::EventListener;
use gloo_timers::callback::{Interval, Timeout};
use wasm_bindgen_futures::spawn_local;

use super::client::{now_ms, AuthClient};
use super::events::AuthChangeEvent;
use crate::error::ClientError;

/// Logged, with the error, when a tick's refresh fails (auth-js's wording).
pub const TICK_FAILED_MESSAGE: &str =
    "Auto refresh tick failed with error. This is likely a transient error.";

pub struct AutoRefresh {
    control: AutoRefreshControl,
    listener: Option<EventListener>,
    ticker: Option<Interval>,
    first_tick: Option<Timeout>,
}

impl AutoRefresh {
    pub fn new(auto_refresh_token: bool) -> Self {
        AutoRefresh {
            control: AutoRefreshControl::new(auto_refresh_token),
            listener: None,
            ticker: None,
            first_tick: None,
        }
    }

    /// Whether the visibility listener is installed.
    pub fn is_listening(&self) -> bool {
        self.listener.is_some()
    }

    /// Whether the ticker is running.
    pub fn is_ticking(&self) -> bool {
        self.ticker.is_some()
    }
}

/// `document.visibilityState`, or `None` outside a page (a worker).
fn current_visibility() -> Option<Visibility> {
    let document = web_sys::window()?.document()?;
    Some(match document.visibility_state() {
        web_sys::VisibilityState::Visible => Visibility::Visible,
        web_sys::VisibilityState::Hidden => Visibility::Hidden,
        _ => Visibility::Other,
    })
}

impl AuthClient {
    /// Recovery, then visibility handling (auth-js `_initialize`'s tail).
    pub(super) async fn run_initialization(self: &Rc<Self>) {
        let actions = self
            .auto_refresh
            .borrow_mut()
            .control
            .initialize(current_visibility());
        for action in actions {
            match action {
                Action::RecoverSession => self.recover_and_refresh().await,
                action => self.apply(action),
            }
        }
    }

    /// `startAutoRefresh()`: the caller takes over from visibility handling.
    pub fn start_auto_refresh(self: &Rc<Self>) {
        let actions = self.auto_refresh.borrow_mut().control.start();
        self.apply_all(actions);
    }

    /// `stopAutoRefresh()`: the caller takes over from visibility handling.
    pub fn stop_auto_refresh(self: &Rc<Self>) {
        let actions = self.auto_refresh.borrow_mut().control.stop();
        self.apply_all(actions);
    }

    /// Removes the listener and timers and forgets every subscriber. Idempotent.
    pub fn dispose(self: &Rc<Self>) {
        let actions = self.auto_refresh.borrow_mut().control.dispose();
        self.apply_all(actions);
        self.subscribers().clear();
    }

    /// Whether the visibility listener and the ticker are live.
    pub fn auto_refresh_state(&self) -> (bool, bool) {
        let auto_refresh = self.auto_refresh.borrow();
        (auto_refresh.is_listening(), auto_refresh.is_ticking())
    }

    fn on_visibility_change(self: &Rc<Self>) {
        let Some(visibility) = current_visibility() else {
            return;
        };
        let actions = self
            .auto_refresh
            .borrow_mut()
            .control
            .visibility_changed(visibility);
        let mut recover = false;
        for action in actions {
            match action {
                Action::RecoverSession => recover = true,
                action => self.apply(action),
            }
        }
        if recover {
            let client = Rc::clone(self);
            spawn_local(async move {
                client.ready().await;
                // The page may have been hidden again meanwhile.
                if current_visibility() == Some(Visibility::Visible) {
                    client.recover_and_refresh().await;
                }
            });
        }
    }

    fn apply_all(self: &Rc<Self>, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::RecoverSession => {
                    let client = Rc::clone(self);
                    spawn_local(async move { client.recover_and_refresh().await });
                }
                action => self.apply(action),
            }
        }
    }

    /// Carries out one listener or timer action (recovery is async and handled by callers).
    fn apply(self: &Rc<Self>, action: Action) {
        let mut auto_refresh = self.auto_refresh.borrow_mut();
        match action {
            Action::ListenForVisibility => {
                let Some(document) = web_sys::window().and_then(|window| window.document()) else {
                    return;
                };
                let client = self.weak();
                auto_refresh.listener = Some(EventListener::new(
                    &document,
                    "visibilitychange",
                    move |_| {
                        if let Some(client) = client.upgrade() {
                            client.on_visibility_change();
                        }
                    },
                ));
            }
            Action::StopListening => auto_refresh.listener = None,
            Action::StartTicker => {
                // Replacing the guards clears the previous interval and timeout.
                let client = self.weak();
                auto_refresh.ticker = Some(Interval::new(self.policy.tick_ms(), move || {
                    if let Some(client) = client.upgrade() {
                        spawn_local(client.tick());
                    }
                }));
                let client = self.weak();
                auto_refresh.first_tick = Some(Timeout::new(0, move || {
                    if let Some(client) = client.upgrade() {
                        spawn_local(client.tick());
                    }
                }));
            }
            Action::StopTicker => {
                auto_refresh.ticker = None;
                auto_refresh.first_tick = None;
            }
            Action::RecoverSession => {}
        }
    }

    /// One tick: read the stored session now, refresh it if core says so, log a failure.
    async fn tick(self: Rc<Self>) {
        self.ready().await;
        let in_flight = self.is_refreshing();
        let session = if in_flight { None } else { self.load_session() };
        let decision = self.policy.tick(
            now_ms(),
            in_flight,
            session.as_ref(),
            &self.cooldown.borrow(),
        );
        let TickDecision::Refresh { refresh_token } = decision else {
            return;
        };
        match self.call_refresh_token(&refresh_token).await {
            // A sign-out raced the refresh: nothing failed.
            Ok(_) | Err(AuthError::RefreshDiscarded) => {}
            Err(error) => web_sys::console::error_2(
                &TICK_FAILED_MESSAGE.into(),
                &ClientError::Auth(error).into(),
            ),
        }
    }

    /// `_recoverAndRefresh`: refresh a stored session close to expiry (when auto-refresh is on),
    /// otherwise announce it (SIGNED_IN); remove a stored value that is not a session.
    pub(super) async fn recover_and_refresh(self: &Rc<Self>) {
        let Some(session) = self.load_session() else {
            return;
        };
        if self.policy.needs_refresh(session.expires_at, now_ms()) {
            if self.auto_refresh_token && !session.refresh_token.is_empty() {
                // Failures are handled (and the session kept or removed) inside the refresh.
                let _ = self.call_refresh_token(&session.refresh_token).await;
            }
        } else {
            self.notify(AuthChangeEvent::SignedIn, Some(&session));
        }
    }
}
