//! The auto-refresh machinery: one object owns the `visibilitychange` listener and the ticker's
//! interval and first timeout, all gloo guards, so `dispose()` or dropping the client removes
//! them. It holds the client only as a `Weak` [`RefreshTarget`], and its guards' callbacks hold
//! only a `Weak` to it: no cycle, no leak, no `Closure::forget`. Core's [`AutoRefreshControl`]
//! says what to do; this carries it out.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use futures_util::future::LocalBoxFuture;
use geocache_core::auth::{Action, AutoRefreshControl, Visibility};
use gloo_events::EventListener;
use gloo_timers::callback::{Interval, Timeout};
use wasm_bindgen_futures::spawn_local;

/// Logged, with the error, when a tick's refresh fails (auth-js's wording).
pub const TICK_FAILED_MESSAGE: &str =
    "Auto refresh tick failed with error. This is likely a transient error.";

/// What the ticker and the visibility listener drive (the auth client).
pub trait RefreshTarget {
    /// Resolves once the client has initialised.
    fn wait_ready(self: Rc<Self>) -> LocalBoxFuture<'static, ()>;
    /// One tick: refresh the stored session if it is due.
    fn tick_once(self: Rc<Self>) -> LocalBoxFuture<'static, ()>;
    /// Refresh a stored session close to expiry, or announce it.
    fn recover_session(self: Rc<Self>) -> LocalBoxFuture<'static, ()>;
}

pub struct AutoRefresh {
    target: Weak<dyn RefreshTarget>,
    tick_ms: u32,
    guards: RefCell<Guards>,
}

struct Guards {
    control: AutoRefreshControl,
    listener: Option<EventListener>,
    ticker: Option<Interval>,
    first_tick: Option<Timeout>,
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

impl AutoRefresh {
    /// Ticks every `tick_ms` once started; nothing runs before [`AutoRefresh::initialize`].
    pub fn new(
        auto_refresh_token: bool,
        tick_ms: u32,
        target: Weak<dyn RefreshTarget>,
    ) -> Rc<Self> {
        Rc::new(AutoRefresh {
            target,
            tick_ms,
            guards: RefCell::new(Guards {
                control: AutoRefreshControl::new(auto_refresh_token),
                listener: None,
                ticker: None,
                first_tick: None,
            }),
        })
    }

    /// Recovery, then visibility handling (auth-js `_initialize`'s tail).
    pub async fn initialize(self: &Rc<Self>) {
        let actions = self
            .guards
            .borrow_mut()
            .control
            .initialize(current_visibility());
        for action in actions {
            match action {
                Action::RecoverSession => {
                    if let Some(target) = self.target.upgrade() {
                        target.recover_session().await;
                    }
                }
                action => self.apply(action),
            }
        }
    }

    /// `startAutoRefresh()`: the caller takes over from visibility handling.
    pub fn start(self: &Rc<Self>) {
        let actions = self.guards.borrow_mut().control.start();
        self.apply_all(actions);
    }

    /// `stopAutoRefresh()`: the caller takes over from visibility handling.
    pub fn stop(self: &Rc<Self>) {
        let actions = self.guards.borrow_mut().control.stop();
        self.apply_all(actions);
    }

    /// Removes the listener and timers. Idempotent.
    pub fn dispose(self: &Rc<Self>) {
        let actions = self.guards.borrow_mut().control.dispose();
        self.apply_all(actions);
    }

    /// Whether the visibility listener and the ticker are live.
    pub fn state(&self) -> (bool, bool) {
        let guards = self.guards.borrow();
        (guards.listener.is_some(), guards.ticker.is_some())
    }

    fn on_visibility_change(self: &Rc<Self>) {
        let Some(visibility) = current_visibility() else {
            return;
        };
        let actions = self
            .guards
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
            let Some(target) = self.target.upgrade() else {
                return;
            };
            spawn_local(async move {
                Rc::clone(&target).wait_ready().await;
                // The page may have been hidden again meanwhile.
                if current_visibility() == Some(Visibility::Visible) {
                    target.recover_session().await;
                }
            });
        }
    }

    fn apply_all(self: &Rc<Self>, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::RecoverSession => {
                    if let Some(target) = self.target.upgrade() {
                        spawn_local(target.recover_session());
                    }
                }
                action => self.apply(action),
            }
        }
    }

    /// Carries out one listener or timer action (recovery is async and handled by callers).
    fn apply(self: &Rc<Self>, action: Action) {
        let mut guards = self.guards.borrow_mut();
        match action {
            Action::ListenForVisibility => {
                let Some(document) = web_sys::window().and_then(|window| window.document()) else {
                    return;
                };
                let this = Rc::downgrade(self);
                guards.listener = Some(EventListener::new(
                    &document,
                    "visibilitychange",
                    move |_| {
                        if let Some(this) = this.upgrade() {
                            this.on_visibility_change();
                        }
                    },
                ));
            }
            Action::StopListening => guards.listener = None,
            Action::StartTicker => {
                // Replacing the guards clears the previous interval and timeout.
                let target = self.target.clone();
                guards.ticker = Some(Interval::new(self.tick_ms, move || {
                    if let Some(target) = target.upgrade() {
                        spawn_local(target.tick_once());
                    }
                }));
                let target = self.target.clone();
                guards.first_tick = Some(Timeout::new(0, move || {
                    if let Some(target) = target.upgrade() {
                        spawn_local(target.tick_once());
                    }
                }));
            }
            Action::StopTicker => {
                guards.ticker = None;
                guards.first_tick = None;
            }
            Action::RecoverSession => {}
        }
    }
}
