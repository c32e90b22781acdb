//! The realtime state one client (a `Client` or a `RealtimeClient`) shares (`Rc`) with its
//! channels: core's [`Realtime`] state machine, and the WebSocket, the timer, the JS callbacks and
//! the `fetch` of a broadcast over HTTP that carry out its actions. The socket's, the timer's and
//! the request's handlers hold only a `Weak` back to it.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use geocache_core::realtime::{
    broadcast_outcome, Action, ChannelId, Delivery, PushId, PushOutcome, Realtime, RealtimeError,
    Status, Vsn,
};
use geocache_core::{ClientConfig, HttpRequest, RequestTimeout, UnixTime};
use js_sys::Function;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::spawn_local;

use super::alarm::Alarm;
use super::socket::{Socket, SocketEvent};
use crate::error::ClientError;
use crate::transport::Transport;

/// `Date.now()`, the `now` every decision takes.
fn now() -> UnixTime {
    UnixTime::from_millis(js_sys::Date::now())
}

/// A channel's JS side: its listeners (by core's listener index) and `subscribe`'s callback.
#[derive(Default)]
struct Callbacks {
    listeners: Vec<Function>,
    status: Option<Function>,
}

pub struct RealtimeState {
    this: Weak<RealtimeState>,
    machine: RefCell<Realtime>,
    socket: RefCell<Option<Socket>>,
    alarm: RefCell<Option<Alarm>>,
    callbacks: RefCell<Vec<(ChannelId, Callbacks)>>,
    /// The `resolve` of each `send` or `unsubscribe` still waiting.
    pushes: RefCell<Vec<(PushId, Function)>>,
    /// Channels whose `subscribe` waits for the session's token.
    subscribing: RefCell<Vec<ChannelId>>,
}

impl RealtimeState {
    /// Serializer 2.0.0, as supabase-js's realtime client uses by default.
    pub fn new(config: &ClientConfig) -> Rc<Self> {
        Rc::new_cyclic(|this| RealtimeState {
            this: this.clone(),
            machine: RefCell::new(Realtime::new(config, Vsn::V2)),
            socket: RefCell::new(None),
            alarm: RefCell::new(None),
            callbacks: RefCell::new(Vec::new()),
            pushes: RefCell::new(Vec::new()),
            subscribing: RefCell::new(Vec::new()),
        })
    }

    /// Reads the state machine without changing it.
    pub fn read<T>(&self, read: impl FnOnce(&Realtime) -> T) -> T {
        read(&self.machine.borrow())
    }

    /// Feeds the state machine, then carries out what it asks for (with no borrow held, so JS
    /// callbacks may call back in).
    pub fn run<T>(&self, step: impl FnOnce(&mut Realtime, UnixTime) -> (T, Vec<Action>)) -> T {
        let (result, actions) = step(&mut self.machine.borrow_mut(), now());
        self.apply(actions);
        result
    }

    /// Marks `channel` as subscribing; `false` if it already was, or is subscribed.
    pub fn start_subscribing(&self, channel: ChannelId) -> bool {
        let subscribed = self.read(|machine| machine.is_subscribed(channel));
        let mut subscribing = self.subscribing.borrow_mut();
        if subscribed || subscribing.contains(&channel) {
            return false;
        }
        subscribing.push(channel);
        true
    }

    /// The token is known and the machine has the subscription.
    pub fn end_subscribing(&self, channel: ChannelId) {
        self.subscribing.borrow_mut().retain(|id| *id != channel);
    }

    /// Keeps a channel's callbacks.
    pub fn add_listener(&self, channel: ChannelId, callback: Function) {
        self.with_callbacks(channel, |callbacks| callbacks.listeners.push(callback));
    }

    pub fn set_status_callback(&self, channel: ChannelId, callback: Option<Function>) {
        self.with_callbacks(channel, |callbacks| callbacks.status = callback);
    }

    /// Feeds the state machine a call that settles later: `resolve` gets its outcome (kept
    /// before the actions are carried out, as they may settle it at once).
    pub fn push(
        &self,
        resolve: Function,
        step: impl FnOnce(&mut Realtime, UnixTime) -> Result<(PushId, Vec<Action>), RealtimeError>,
    ) -> Result<(), RealtimeError> {
        let (push, actions) = step(&mut self.machine.borrow_mut(), now())?;
        self.pushes.borrow_mut().push((push, resolve));
        self.apply(actions);
        Ok(())
    }

    /// Closes the socket, clears the timer, settles waiting pushes with `error` and forgets
    /// every channel. Idempotent.
    pub fn dispose(&self) {
        self.run(|machine, _| ((), machine.dispose()));
        self.socket.borrow_mut().take();
        self.alarm.borrow_mut().take();
    }

    /// Whether a socket and a timer are live (for tests).
    pub fn resources(&self) -> (bool, bool) {
        (
            self.socket.borrow().is_some(),
            self.alarm.borrow().is_some(),
        )
    }

    fn with_callbacks(&self, channel: ChannelId, change: impl FnOnce(&mut Callbacks)) {
        let mut all = self.callbacks.borrow_mut();
        let index = match all.iter().position(|(id, _)| *id == channel) {
            Some(index) => index,
            None => {
                all.push((channel, Callbacks::default()));
                all.len() - 1
            }
        };
        change(&mut all[index].1);
    }

    fn apply(&self, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Connect(url) => self.connect(&url),
                Action::Send(frame) => {
                    if let Some(socket) = self.socket.borrow().as_ref() {
                        socket.send(&frame);
                    }
                }
                Action::Close { code, reason } => {
                    let socket = self.socket.borrow_mut().take();
                    if let Some(socket) = socket {
                        socket.close(code, reason);
                    }
                }
                Action::Status {
                    channel,
                    status,
                    message,
                } => self.tell_status(channel, status, message),
                Action::Deliver { channel, delivery } => self.deliver(channel, delivery),
                Action::Settle { push, outcome } => self.settle(push, outcome),
                Action::Post {
                    push,
                    request,
                    timeout,
                } => self.post(push, request, timeout),
                Action::Forget(channel) => {
                    self.callbacks.borrow_mut().retain(|(id, _)| *id != channel);
                }
                Action::ArmTimer(at) => self.arm(at),
                Action::ClearTimer => {
                    self.alarm.borrow_mut().take();
                }
            }
        }
    }

    fn connect(&self, url: &str) {
        let this = self.this.clone();
        let report = move |event: SocketEvent| {
            let Some(this) = this.upgrade() else {
                return;
            };
            this.run(|machine, now| {
                let actions = match &event {
                    SocketEvent::Opened => machine.opened(now),
                    SocketEvent::Frame(frame) => machine.received(frame, now),
                    SocketEvent::Closed => machine.closed(now),
                };
                ((), actions)
            });
        };
        // The previous socket (if any) is dropped, detached and closed, first.
        self.socket.borrow_mut().take();
        match Socket::open(url, report) {
            Ok(socket) => *self.socket.borrow_mut() = Some(socket),
            // A URL the browser refuses: a failed connection, retried with the back-off.
            Err(_) => self.run(|machine, now| ((), machine.closed(now))),
        }
    }

    /// Sends a broadcast over HTTP; its answer (or none within `timeout`) settles the `send`.
    fn post(&self, push: PushId, request: HttpRequest, timeout: RequestTimeout) {
        let this = self.this.clone();
        spawn_local(async move {
            let answer = Transport::new(timeout).send(&request).await;
            if let Some(this) = this.upgrade() {
                this.settle(push, broadcast_outcome(&answer));
            }
        });
    }

    fn arm(&self, at: UnixTime) {
        let delay = at
            .millis_since(now())
            .ceil()
            .clamp(0.0, f64::from(i32::MAX));
        let this = self.this.clone();
        // Replacing the alarm clears the previous timer.
        let alarm = Alarm::new(delay as u32, move || {
            if let Some(this) = this.upgrade() {
                this.run(|machine, now| ((), machine.tick(now)));
            }
        });
        *self.alarm.borrow_mut() = Some(alarm);
    }

    fn tell_status(&self, channel: ChannelId, status: Status, message: Option<String>) {
        let callback = self.callback(channel, |callbacks| callbacks.status.clone());
        let Some(callback) = callback.flatten() else {
            return;
        };
        let error = match message {
            Some(message) => ClientError::Realtime(RealtimeError::ChannelError { message }).into(),
            None => JsValue::UNDEFINED,
        };
        report(callback.call2(&JsValue::NULL, &status.as_str().into(), &error));
    }

    fn deliver(&self, channel: ChannelId, delivery: Delivery) {
        let listeners = self.callback(channel, |callbacks| {
            delivery
                .listeners
                .iter()
                .filter_map(|index| callbacks.listeners.get(*index).cloned())
                .collect::<Vec<_>>()
        });
        let Some(listeners) = listeners else {
            return;
        };
        // Plain data as `JSON.parse` gives it (core's payloads are JSON text).
        let Ok(payload) = js_sys::JSON::parse(&delivery.payload) else {
            return;
        };
        for listener in listeners {
            report(listener.call1(&JsValue::NULL, &payload));
        }
    }

    fn settle(&self, push: PushId, outcome: PushOutcome) {
        let resolve = {
            let mut pushes = self.pushes.borrow_mut();
            let index = pushes.iter().position(|(id, _)| *id == push);
            index.map(|index| pushes.remove(index).1)
        };
        if let Some(resolve) = resolve {
            report(resolve.call1(&JsValue::NULL, &outcome.as_str().into()));
        }
    }

    fn callback<T>(&self, channel: ChannelId, read: impl FnOnce(&Callbacks) -> T) -> Option<T> {
        let all = self.callbacks.borrow();
        all.iter()
            .find(|(id, _)| *id == channel)
            .map(|(_, callbacks)| read(callbacks))
    }
}

/// A callback's exception does not stop the client: it is reported where an uncaught one
/// would be.
fn report(result: Result<JsValue, JsValue>) {
    if let Err(thrown) = result {
        web_sys::console::error_1(&thrown);
    }
}
