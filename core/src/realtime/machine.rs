//! The Realtime socket as a state machine over an explicit `now`: realtime-js's RealtimeClient
//! and RealtimeChannel (with Phoenix's socket, channel and push) reduced to decisions. The
//! bindings feed it what happened (a call, the socket opening or closing, a frame, a timer) and
//! carry out the [`Action`]s it returns; it never reads a clock or touches the web.

use std::time::Duration;

use crate::{ClientConfig, UnixTime};

use super::action::{Action, ChannelId, PushId, PushOutcome, Status};
use super::channel::{Channel, ChannelState, Pending};
use super::dispatch::deliver;
use super::error::RealtimeError;
use super::http_broadcast::{broadcast_request, broadcast_timeout};
use super::join::{join_payload, join_reply, ChannelOptions, JoinReply, Listener};
use super::json_text::{is_json, quote, Entries};
use super::message::{Frame, Message};
use super::serializer::{BroadcastPush, Vsn};
use super::socket_url::socket_url;
use super::timing::{
    reconnect_after_ms, rejoin_after_ms, HEARTBEAT_INTERVAL_MS, HEARTBEAT_TIMEOUT_CLOSE,
    IDLE_DISCONNECT_MS, PUSH_TIMEOUT_MS,
};

/// The socket's connection.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Connection {
    /// No socket, none wanted.
    Idle,
    Connecting,
    Open,
    /// Lost; the next attempt is due at this moment.
    Waiting(UnixTime),
}

fn later(now: UnixTime, ms: u32) -> UnixTime {
    now + Duration::from_millis(u64::from(ms))
}

/// `phx_leave` for the channel's current join, as push `msg_ref`.
fn leave_message(channel: &Channel, msg_ref: String) -> Message {
    Message::new(channel.topic.clone(), "phx_leave", "{}")
        .with_refs(channel.join_ref.clone(), Some(msg_ref))
}

/// Events lifecycle replies may be stale for (Phoenix's `isLifecycleEvent`).
fn is_lifecycle(event: &str) -> bool {
    matches!(
        event,
        "phx_reply" | "phx_close" | "phx_error" | "phx_join" | "phx_leave"
    )
}

/// One socket and its channels.
#[derive(Debug, Clone)]
pub struct Realtime {
    config: ClientConfig,
    url: String,
    key: String,
    vsn: Vsn,
    /// The signed-in user's access token; `None`: the key is sent instead.
    token: Option<String>,
    connection: Connection,
    reconnect_tries: u32,
    heartbeat_at: Option<UnixTime>,
    heartbeat_ref: Option<String>,
    disconnect_at: Option<UnixTime>,
    next_ref: u64,
    next_channel: u32,
    next_push: u32,
    channels: Vec<Channel>,
    /// The timer last asked for, so only changes are reported.
    armed: Option<UnixTime>,
}

impl Realtime {
    pub fn new(config: &ClientConfig, vsn: Vsn) -> Self {
        Realtime {
            config: config.clone(),
            url: socket_url(config, vsn),
            key: config.key().to_owned(),
            vsn,
            token: None,
            connection: Connection::Idle,
            reconnect_tries: 0,
            heartbeat_at: None,
            heartbeat_ref: None,
            disconnect_at: None,
            next_ref: 0,
            next_channel: 0,
            next_push: 0,
            channels: Vec::new(),
            armed: None,
        }
    }

    // --- Queries ----------------------------------------------------------------------------

    /// The channels, in creation order.
    pub fn channel_ids(&self) -> Vec<ChannelId> {
        self.channels.iter().map(|channel| channel.id).collect()
    }

    /// `realtime:<name>`.
    pub fn topic(&self, id: ChannelId) -> Option<&str> {
        self.find(id).map(|channel| channel.topic.as_str())
    }

    pub fn state(&self, id: ChannelId) -> Option<ChannelState> {
        self.find(id).map(|channel| channel.state)
    }

    /// Whether `subscribe` was called on the channel.
    pub fn is_subscribed(&self, id: ChannelId) -> bool {
        self.find(id).is_some_and(|channel| channel.subscribed)
    }

    /// Whether a socket is open.
    pub fn is_connected(&self) -> bool {
        self.connection == Connection::Open
    }

    /// Whether the channel's broadcasts go over the socket: it is open and the channel joined
    /// (realtime-js's `canPush`). Otherwise they go over HTTP.
    pub fn can_push(&self, id: ChannelId) -> bool {
        self.is_connected()
            && self
                .find(id)
                .is_some_and(|channel| channel.state == ChannelState::Joined)
    }

    /// The access token joins carry: the user's, else the key.
    pub fn access_token(&self) -> &str {
        self.token.as_deref().unwrap_or(&self.key)
    }

    /// The earliest moment something is due.
    pub fn next_deadline(&self) -> Option<UnixTime> {
        let reconnect = match self.connection {
            Connection::Waiting(at) => Some(at),
            _ => None,
        };
        self.channels
            .iter()
            .flat_map(Channel::deadlines)
            .chain(self.heartbeat_at)
            .chain(self.disconnect_at)
            .chain(reconnect)
            .fold(None, |earliest: Option<UnixTime>, at| match earliest {
                Some(earliest) if earliest <= at => Some(earliest),
                _ => Some(at),
            })
    }

    // --- Calls ------------------------------------------------------------------------------

    /// `client.channel(name, options)`: the channel of topic `realtime:<name>`, the existing
    /// one if there is one (as realtime-js returns it).
    pub fn channel(&mut self, name: &str, options: ChannelOptions) -> ChannelId {
        let topic = format!("realtime:{name}");
        if let Some(channel) = self.channels.iter().find(|c| c.topic == topic) {
            return channel.id;
        }
        self.next_channel += 1;
        let id = ChannelId(self.next_channel);
        self.channels.push(Channel::new(id, topic, options));
        id
    }

    /// `channel.on(...)`: the listener gets the next index.
    pub fn listen(&mut self, id: ChannelId, listener: Listener) -> Result<(), RealtimeError> {
        let channel = self.find_mut(id).ok_or(RealtimeError::UnknownChannel)?;
        channel.listeners.push(listener);
        channel.change_ids.push(None);
        Ok(())
    }

    /// `channel.subscribe()`: connect if need be, then join.
    pub fn subscribe(
        &mut self,
        id: ChannelId,
        now: UnixTime,
    ) -> Result<Vec<Action>, RealtimeError> {
        let channel = self.find_mut(id).ok_or(RealtimeError::UnknownChannel)?;
        if channel.subscribed {
            return Err(RealtimeError::AlreadySubscribed);
        }
        channel.subscribed = true;
        channel.state = ChannelState::Joining;
        let mut actions = Vec::new();
        self.disconnect_at = None;
        match self.connection {
            Connection::Idle => {
                self.connection = Connection::Connecting;
                actions.push(Action::Connect(self.url.clone()));
            }
            Connection::Open => self.send_join(id, now, &mut actions),
            // The join goes out once the socket opens.
            Connection::Connecting | Connection::Waiting(_) => {}
        }
        Ok(self.finish(actions))
    }

    /// `channel.send({ type: 'broadcast', event, payload })`, `payload` as JSON text. Without
    /// `ack` it settles `ok` as soon as it is sent; with `ack`, on the server's reply (or
    /// `timed out` after 10 s). A channel that cannot push (not joined, no socket, or removed:
    /// `topic` is the one its handle keeps) sends it over HTTP instead, as realtime-js does
    /// ([`Action::Post`]), with the access token the channel would join with.
    pub fn broadcast(
        &mut self,
        id: ChannelId,
        topic: &str,
        event: &str,
        payload: &str,
        now: UnixTime,
    ) -> Result<(PushId, Vec<Action>), RealtimeError> {
        if !is_json(payload) {
            return Err(RealtimeError::PayloadNotJson);
        }
        let push = self.new_push();
        if !self.can_push(id) {
            let request = broadcast_request(
                &self.config,
                self.vsn,
                self.token.as_deref(),
                topic,
                event,
                payload,
            );
            let actions = vec![Action::Post {
                push,
                request,
                timeout: broadcast_timeout(),
            }];
            return Ok((push, self.finish(actions)));
        }
        let msg_ref = self.new_ref();
        let vsn = self.vsn;
        let channel = self.find_mut(id).expect("a channel that can push exists");
        let frame = vsn.encode_broadcast(&BroadcastPush {
            topic: &channel.topic,
            join_ref: channel.join_ref.as_deref(),
            msg_ref: &msg_ref,
            event,
            payload,
        })?;
        let mut actions = vec![Action::Send(frame)];
        if channel.options.broadcast_ack {
            channel.pending.push(Pending {
                push: Some(push),
                msg_ref,
                deadline: later(now, PUSH_TIMEOUT_MS),
                leave: false,
            });
        } else {
            actions.push(Action::Settle {
                push,
                outcome: PushOutcome::Ok,
            });
        }
        Ok((push, self.finish(actions)))
    }

    /// `channel.unsubscribe()`: `phx_leave`, then CLOSED and the channel removed on its reply
    /// (or after 10 s). A channel that is not joined closes at once.
    pub fn unsubscribe(&mut self, id: ChannelId, now: UnixTime) -> (PushId, Vec<Action>) {
        let push = self.new_push();
        let mut actions = Vec::new();
        let connected = self.is_connected();
        let Some(channel) = self.find(id) else {
            actions.push(Action::Settle {
                push,
                outcome: PushOutcome::Ok,
            });
            return (push, self.finish(actions));
        };
        let joined = matches!(channel.state, ChannelState::Joined | ChannelState::Joining);
        if connected && joined && channel.join_ref.is_some() {
            self.leave(id, Some(push), now, &mut actions);
        } else {
            actions.push(Action::Settle {
                push,
                outcome: PushOutcome::Ok,
            });
            self.close_channel(id, now, &mut actions);
        }
        (push, self.finish(actions))
    }

    /// The access token changed (a sign-in, a refresh, a sign-out: `None`). Joined channels
    /// get an `access_token` push; later joins carry it.
    pub fn set_access_token(&mut self, token: Option<String>) -> Vec<Action> {
        if token == self.token {
            return Vec::new();
        }
        self.token = token;
        let mut actions = Vec::new();
        if self.is_connected() {
            let access_token = self.access_token().to_owned();
            let joined: Vec<(String, Option<String>)> = self
                .channels
                .iter()
                .filter(|channel| channel.state == ChannelState::Joined)
                .map(|channel| (channel.topic.clone(), channel.join_ref.clone()))
                .collect();
            for (topic, join_ref) in joined {
                let msg_ref = self.new_ref();
                let payload = format!(r#"{{"access_token":{}}}"#, quote(&access_token));
                let message =
                    Message::new(topic, "access_token", payload).with_refs(join_ref, Some(msg_ref));
                self.send(&message, &mut actions);
            }
        }
        self.finish(actions)
    }

    /// Closes the socket, settles every waiting push with `error`, forgets every channel and
    /// every timer. The machine can be used again afterwards.
    pub fn dispose(&mut self) -> Vec<Action> {
        let mut actions = Vec::new();
        if self.connection != Connection::Idle {
            actions.push(Action::Close {
                code: 1000,
                reason: "",
            });
        }
        self.connection = Connection::Idle;
        self.heartbeat_at = None;
        self.heartbeat_ref = None;
        self.disconnect_at = None;
        for channel in std::mem::take(&mut self.channels) {
            for pending in channel.pending {
                if let Some(push) = pending.push {
                    actions.push(Action::Settle {
                        push,
                        outcome: PushOutcome::Error,
                    });
                }
            }
            actions.push(Action::Forget(channel.id));
        }
        self.finish(actions)
    }

    // --- The socket -------------------------------------------------------------------------

    /// The socket opened: heartbeats start, and every channel waiting to join joins.
    pub fn opened(&mut self, now: UnixTime) -> Vec<Action> {
        let mut actions = Vec::new();
        if self.connection != Connection::Connecting {
            return actions;
        }
        self.connection = Connection::Open;
        self.reconnect_tries = 0;
        self.heartbeat_at = Some(later(now, HEARTBEAT_INTERVAL_MS));
        self.heartbeat_ref = None;
        let waiting: Vec<ChannelId> = self
            .channels
            .iter()
            .filter(|channel| {
                channel.subscribed
                    && matches!(channel.state, ChannelState::Joining | ChannelState::Errored)
            })
            .map(|channel| channel.id)
            .collect();
        for id in waiting {
            if let Some(channel) = self.find_mut(id) {
                channel.rejoin_tries = 0;
            }
            self.send_join(id, now, &mut actions);
        }
        self.finish(actions)
    }

    /// The socket closed (or failed to open) without being asked to.
    pub fn closed(&mut self, now: UnixTime) -> Vec<Action> {
        let mut actions = Vec::new();
        if matches!(self.connection, Connection::Idle | Connection::Waiting(_)) {
            return actions;
        }
        self.lost(now, &mut actions);
        self.finish(actions)
    }

    /// A frame arrived. Frames that are not the protocol are ignored.
    pub fn received(&mut self, frame: &Frame, now: UnixTime) -> Vec<Action> {
        let mut actions = Vec::new();
        if let Ok(message) = self.vsn.decode(frame) {
            self.route(message, now, &mut actions);
        }
        self.finish(actions)
    }

    /// Whatever is due at `now`: heartbeat (or its timeout), reconnect, join timeouts, rejoins,
    /// push timeouts, the idle disconnect.
    pub fn tick(&mut self, now: UnixTime) -> Vec<Action> {
        let mut actions = Vec::new();
        let due = |at: Option<UnixTime>| at.is_some_and(|at| at <= now);
        if let Connection::Waiting(at) = self.connection {
            if at <= now {
                self.connection = Connection::Connecting;
                actions.push(Action::Connect(self.url.clone()));
            }
        }
        if due(self.heartbeat_at) {
            self.heartbeat(now, &mut actions);
        }
        if due(self.disconnect_at) {
            self.disconnect_at = None;
            if self.channels.is_empty() {
                self.go_idle(&mut actions);
            }
        }
        for id in self.channel_ids() {
            self.tick_channel(id, now, &mut actions);
        }
        self.finish(actions)
    }

    // --- Internals --------------------------------------------------------------------------

    fn find(&self, id: ChannelId) -> Option<&Channel> {
        self.channels.iter().find(|channel| channel.id == id)
    }

    fn find_mut(&mut self, id: ChannelId) -> Option<&mut Channel> {
        self.channels.iter_mut().find(|channel| channel.id == id)
    }

    fn new_ref(&mut self) -> String {
        self.next_ref += 1;
        self.next_ref.to_string()
    }

    fn new_push(&mut self) -> PushId {
        self.next_push += 1;
        PushId(self.next_push)
    }

    /// Reports a change of the earliest deadline.
    fn finish(&mut self, mut actions: Vec<Action>) -> Vec<Action> {
        let next = self.next_deadline();
        if next != self.armed {
            self.armed = next;
            actions.push(next.map_or(Action::ClearTimer, Action::ArmTimer));
        }
        actions
    }

    fn send(&self, message: &Message, actions: &mut Vec<Action>) {
        actions.push(Action::Send(self.vsn.encode(message)));
    }

    fn send_join(&mut self, id: ChannelId, now: UnixTime, actions: &mut Vec<Action>) {
        let join_ref = self.new_ref();
        let access_token = self.access_token().to_owned();
        let Some(channel) = self.find_mut(id) else {
            return;
        };
        channel.state = ChannelState::Joining;
        channel.join_ref = Some(join_ref.clone());
        channel.join_deadline = Some(later(now, PUSH_TIMEOUT_MS));
        channel.rejoin_at = None;
        let payload = join_payload(&channel.options, &channel.listeners, &access_token);
        let message = Message::new(channel.topic.clone(), "phx_join", payload)
            .with_refs(Some(join_ref.clone()), Some(join_ref));
        self.send(&message, actions);
    }

    /// Sends `phx_leave` with the current join ref; with `push`, waits for its reply.
    fn leave(
        &mut self,
        id: ChannelId,
        push: Option<PushId>,
        now: UnixTime,
        actions: &mut Vec<Action>,
    ) {
        let msg_ref = self.new_ref();
        let Some(channel) = self.find_mut(id) else {
            return;
        };
        channel.enter_untimed(ChannelState::Leaving);
        channel.pending.push(Pending {
            push,
            msg_ref: msg_ref.clone(),
            deadline: later(now, PUSH_TIMEOUT_MS),
            leave: true,
        });
        let message = leave_message(channel, msg_ref);
        self.send(&message, actions);
    }

    /// A leave the client does not wait for (after a join timeout).
    fn leave_quietly(&mut self, id: ChannelId, actions: &mut Vec<Action>) {
        let msg_ref = self.new_ref();
        if let Some(channel) = self.find(id) {
            let message = leave_message(channel, msg_ref);
            self.send(&message, actions);
        }
    }

    /// CLOSED: the channel is removed; its waiting pushes settle (a leave `ok`, others `error`).
    fn close_channel(&mut self, id: ChannelId, now: UnixTime, actions: &mut Vec<Action>) {
        let Some(index) = self.channels.iter().position(|channel| channel.id == id) else {
            return;
        };
        let channel = self.channels.remove(index);
        for pending in channel.pending {
            if let Some(push) = pending.push {
                let outcome = if pending.leave {
                    PushOutcome::Ok
                } else {
                    PushOutcome::Error
                };
                actions.push(Action::Settle { push, outcome });
            }
        }
        actions.push(Action::Status {
            channel: id,
            status: Status::Closed,
            message: None,
        });
        actions.push(Action::Forget(id));
        if self.channels.is_empty() && self.connection != Connection::Idle {
            self.disconnect_at = Some(later(now, IDLE_DISCONNECT_MS));
        }
    }

    /// CHANNEL_ERROR (or TIMED_OUT), then a rejoin after the back-off while the socket is open
    /// (when it is not, the socket's next open rejoins).
    fn errored(
        &mut self,
        id: ChannelId,
        status: Status,
        message: Option<String>,
        now: UnixTime,
        actions: &mut Vec<Action>,
    ) {
        let connected = self.is_connected();
        let Some(channel) = self.find_mut(id) else {
            return;
        };
        channel.enter_untimed(ChannelState::Errored);
        if connected {
            channel.rejoin_tries += 1;
            channel.rejoin_at = Some(later(now, rejoin_after_ms(channel.rejoin_tries)));
        }
        actions.push(Action::Status {
            channel: id,
            status,
            message,
        });
    }

    /// The socket is gone: joined and joining channels error, and a reconnect is scheduled
    /// while any channel is still wanted.
    fn lost(&mut self, now: UnixTime, actions: &mut Vec<Action>) {
        self.heartbeat_at = None;
        self.heartbeat_ref = None;
        self.disconnect_at = None;
        self.connection = Connection::Idle;
        let live: Vec<ChannelId> = self
            .channels
            .iter()
            .filter(|channel| matches!(channel.state, ChannelState::Joined | ChannelState::Joining))
            .map(|channel| channel.id)
            .collect();
        for id in live {
            self.errored(id, Status::ChannelError, None, now, actions);
        }
        // A channel being left needs no new socket: its leave times out and closes it.
        let wanted =
            |channel: &Channel| channel.subscribed && channel.state != ChannelState::Leaving;
        if self.channels.iter().any(wanted) {
            self.reconnect_tries += 1;
            let at = later(now, reconnect_after_ms(self.reconnect_tries));
            self.connection = Connection::Waiting(at);
        }
    }

    fn go_idle(&mut self, actions: &mut Vec<Action>) {
        if self.connection != Connection::Idle {
            actions.push(Action::Close {
                code: 1000,
                reason: "",
            });
        }
        self.connection = Connection::Idle;
        self.heartbeat_at = None;
        self.heartbeat_ref = None;
    }

    /// A heartbeat, or, when the last one is still unanswered, a dead socket: closed with
    /// "heartbeat timeout", and reconnected.
    fn heartbeat(&mut self, now: UnixTime, actions: &mut Vec<Action>) {
        if self.heartbeat_ref.is_some() {
            let (code, reason) = HEARTBEAT_TIMEOUT_CLOSE;
            actions.push(Action::Close { code, reason });
            self.lost(now, actions);
            return;
        }
        let msg_ref = self.new_ref();
        let message =
            Message::new("phoenix", "heartbeat", "{}").with_refs(None, Some(msg_ref.clone()));
        self.send(&message, actions);
        self.heartbeat_ref = Some(msg_ref);
        self.heartbeat_at = Some(later(now, HEARTBEAT_INTERVAL_MS));
    }

    fn tick_channel(&mut self, id: ChannelId, now: UnixTime, actions: &mut Vec<Action>) {
        let due = |at: Option<UnixTime>| at.is_some_and(|at| at <= now);
        let Some(channel) = self.find_mut(id) else {
            return;
        };
        let (expired, waiting): (Vec<Pending>, Vec<Pending>) = std::mem::take(&mut channel.pending)
            .into_iter()
            .partition(|pending| pending.deadline <= now);
        channel.pending = waiting;
        let join_timed_out = due(channel.join_deadline);
        let rejoin_due = due(channel.rejoin_at);
        let mut closes = false;
        for pending in expired {
            if let Some(push) = pending.push {
                actions.push(Action::Settle {
                    push,
                    outcome: PushOutcome::TimedOut,
                });
            }
            closes |= pending.leave;
        }
        if closes {
            self.close_channel(id, now, actions);
            return;
        }
        if join_timed_out {
            self.leave_quietly(id, actions);
            self.errored(id, Status::TimedOut, None, now, actions);
        } else if rejoin_due {
            if self.is_connected() {
                self.send_join(id, now, actions);
            } else if let Some(channel) = self.find_mut(id) {
                channel.rejoin_at = None;
            }
        }
    }

    fn route(&mut self, message: Message, now: UnixTime, actions: &mut Vec<Action>) {
        if message.topic == "phoenix" {
            if message.event == "phx_reply" && message.msg_ref == self.heartbeat_ref {
                self.heartbeat_ref = None;
            }
            return;
        }
        let Some(channel) = self.channels.iter().find(|c| c.topic == message.topic) else {
            return;
        };
        let id = channel.id;
        let join_ref = channel.join_ref.clone();
        // A reply or close meant for an earlier join of this channel.
        if is_lifecycle(&message.event)
            && message.join_ref.is_some()
            && message.join_ref != join_ref
        {
            return;
        }
        if matches!(message.event.as_str(), "phx_close" | "phx_error")
            && message.msg_ref.is_some()
            && message.msg_ref != join_ref
        {
            return;
        }
        match message.event.as_str() {
            "phx_reply" => self.reply(id, &message, now, actions),
            "phx_close" => self.close_channel(id, now, actions),
            "phx_error" => {
                if matches!(channel.state, ChannelState::Joined | ChannelState::Joining) {
                    self.errored(id, Status::ChannelError, None, now, actions);
                }
            }
            event => {
                if let Some(delivery) = deliver(
                    event,
                    &message.payload,
                    &channel.listeners,
                    &channel.change_ids,
                ) {
                    actions.push(Action::Deliver {
                        channel: id,
                        delivery,
                    });
                }
            }
        }
    }

    fn reply(
        &mut self,
        id: ChannelId,
        message: &Message,
        now: UnixTime,
        actions: &mut Vec<Action>,
    ) {
        let Some(channel) = self.find_mut(id) else {
            return;
        };
        let is_join = message.msg_ref.is_some() && message.msg_ref == channel.join_ref;
        if is_join {
            if channel.state != ChannelState::Joining {
                return;
            }
            match join_reply(&message.payload, &channel.listeners) {
                JoinReply::Joined { change_ids } => {
                    channel.state = ChannelState::Joined;
                    channel.change_ids = change_ids;
                    channel.join_deadline = None;
                    channel.rejoin_tries = 0;
                    actions.push(Action::Status {
                        channel: id,
                        status: Status::Subscribed,
                        message: None,
                    });
                }
                JoinReply::Mismatch(reason) => {
                    actions.push(Action::Status {
                        channel: id,
                        status: Status::ChannelError,
                        message: Some(reason),
                    });
                    self.leave(id, None, now, actions);
                }
                JoinReply::Refused(reason) => {
                    self.errored(id, Status::ChannelError, Some(reason), now, actions);
                }
            }
            return;
        }
        let Some(position) = channel
            .pending
            .iter()
            .position(|pending| Some(&pending.msg_ref) == message.msg_ref.as_ref())
        else {
            return;
        };
        let pending = channel.pending.remove(position);
        let status = Entries::parse(&message.payload).and_then(|reply| reply.string("status"));
        let outcome = match status.as_deref() {
            Some("ok") => PushOutcome::Ok,
            _ => PushOutcome::Error,
        };
        if let Some(push) = pending.push {
            actions.push(Action::Settle { push, outcome });
        }
        if pending.leave {
            self.close_channel(id, now, actions);
        }
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
