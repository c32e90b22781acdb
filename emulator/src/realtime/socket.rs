//! One Realtime WebSocket: Phoenix's channel protocol over the socket's serializer.
//!
//! One task per socket reads the client's frames and the hub's bus in turn, so everything the
//! socket sends (replies, changes, broadcasts) goes out in the order it happened. A socket that
//! sends nothing (not even a heartbeat) for the timeout is closed, and so is one that reads nothing
//! for as long; one that falls too far behind the bus is closed with 1011 rather than skipping
//! events, and one that sends a message over [`crate::realtime::size::MAX_MESSAGE_BYTES`] is closed with 1009 before
//! the message is read whole.
//!
//! What a socket sends others is bounded: a broadcast's payload by [`MAX_PAYLOAD_BYTES`], all its
//! broadcasts by a byte budget ([`ByteBudget`]), its presence state by the presence limits. Each
//! refusal is a `phx_reply` error and a `system` message whose reason starts with the limit's
//! name, and the refused message reaches nobody.

use crate::clock::Clock;
use crate::keys::{Keys, Role};
use crate::random;
use crate::read_access::ReadAccess;
use crate::realtime::access;
use crate::realtime::access::ChannelAccess;
use crate::realtime::binding::Binding;
use crate::realtime::budget::ByteBudget;
use crate::realtime::frame::{self, Broadcast, Message, Outgoing, Payload, Vsn};
use crate::realtime::hub::{ChannelView, Event, Hub, Published, SocketSlot, TopicBroadcast};
use crate::realtime::join::JoinConfig;
use crate::realtime::presence;
use crate::realtime::size::{MAX_PAYLOAD_BYTES, PAYLOAD_SIZE_EXCEEDED};
use axum::extract::ws::{CloseFrame, Message as WsMessage, WebSocket};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{sleep_until, Instant};
use tokio_tungstenite::tungstenite;

/// Topics of Realtime channels start with this; the rest is the channel's name.
const TOPIC_PREFIX: &str = "realtime:";

/// What the socket was opened with.
#[derive(Debug, Clone)]
pub struct Connection {
    pub vsn: Vsn,
    pub api_key: String,
    pub key_role: Role,
    pub keys: Arc<Keys>,
    pub clock: Clock,
    /// Who may read the table, as REST reads decide it: INSERTs and UPDATEs follow it.
    pub read_access: ReadAccess,
}

/// A joined channel.
#[derive(Debug)]
struct Channel {
    join_ref: Option<String>,
    access: ChannelAccess,
    bindings: Vec<Binding>,
    broadcast_self: bool,
    broadcast_ack: bool,
    /// Whether presence events are sent to this channel.
    presence_enabled: bool,
    /// The key this channel tracks under: `config.presence.key`, else a random one.
    presence_key: String,
}

/// Why the loop ends.
enum End {
    /// The client closed or the connection broke.
    Gone,
    /// Close with this code and reason.
    Close(u16, &'static str),
}

struct Socket {
    ws: WebSocket,
    connection: Connection,
    hub: Arc<Hub>,
    id: u64,
    channels: HashMap<String, Channel>,
    broadcast_budget: ByteBudget,
}

/// Serves an upgraded socket in the `slot` the hub counted it in.
pub async fn serve(ws: WebSocket, connection: Connection, hub: Arc<Hub>, slot: SocketSlot) {
    let open = hub.open(slot, connection.vsn.name());
    let (mut events, mut drops, _registration) = (open.events, open.drops, open.registration);
    drops.mark_unchanged();
    let timeout = hub.limits.timeout;
    let broadcast_budget = ByteBudget::new(
        hub.limits.broadcast_burst_bytes,
        hub.limits.broadcast_bytes_per_second,
        std::time::Instant::now(),
    );
    let mut socket = Socket {
        ws,
        connection,
        hub,
        id: open.id,
        channels: HashMap::new(),
        broadcast_budget,
    };
    let mut deadline = Instant::now() + timeout;
    let end = loop {
        let expiry = socket.next_expiry();
        tokio::select! {
            frame = socket.ws.recv() => {
                let frame = match frame {
                    Some(Ok(frame)) => frame,
                    Some(Err(error)) if too_big(&error) => break End::Close(1009, "message too big"),
                    Some(Err(_)) | None => break End::Gone,
                };
                deadline = Instant::now() + timeout;
                let step = match frame {
                    WsMessage::Text(text) => socket.received(frame::decode_text(socket.connection.vsn, text.as_str())).await,
                    WsMessage::Binary(bytes) => socket.received(frame::decode_binary(&bytes)).await,
                    WsMessage::Close(_) => Err(End::Gone),
                    WsMessage::Ping(_) | WsMessage::Pong(_) => Ok(()),
                };
                if let Err(end) = step { break end; }
            }
            event = events.recv() => {
                let step = match event {
                    Ok(Event::Change(change)) => socket.deliver_change(&change).await,
                    Ok(Event::Broadcast(broadcast)) => socket.deliver_broadcast(&broadcast).await,
                    Ok(Event::Presence(diff)) => socket.deliver_presence(&diff).await,
                    Err(RecvError::Lagged(_)) => Err(End::Close(1011, "too slow: events were pending")),
                    Err(RecvError::Closed) => Err(End::Gone),
                };
                if let Err(end) = step { break end; }
            }
            _ = drops.changed() => return,
            () = sleep_until(deadline) => break End::Close(1000, "timeout"),
            () = sleep_until(expiry.unwrap_or(deadline)), if expiry.is_some() => {
                if let Err(end) = socket.close_expired().await { break end; }
            }
        }
    };
    if let End::Close(code, reason) = end {
        let close = CloseFrame {
            code,
            reason: reason.into(),
        };
        let _ = socket.ws.send(WsMessage::Close(Some(close))).await;
    }
}

impl Socket {
    async fn send(&mut self, outgoing: Outgoing) -> Result<(), End> {
        let message = match outgoing {
            Outgoing::Text(text) => WsMessage::Text(text.into()),
            Outgoing::Binary(bytes) => WsMessage::Binary(bytes.into()),
        };
        // A client that stops reading would hold the send (and so the socket) forever.
        match tokio::time::timeout(self.hub.limits.timeout, self.ws.send(message)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) | Err(_) => Err(End::Gone),
        }
    }

    async fn push(
        &mut self,
        join_ref: Option<&str>,
        reference: Option<&str>,
        topic: &str,
        event: &str,
        payload: &Value,
    ) -> Result<(), End> {
        let text = frame::encode(
            self.connection.vsn,
            join_ref,
            reference,
            topic,
            event,
            payload,
        );
        self.send(Outgoing::Text(text)).await
    }

    /// A `phx_reply` to `message`, with its refs.
    async fn reply(&mut self, message: &Message, status: &str, response: Value) -> Result<(), End> {
        let payload = json!({"status": status, "response": response});
        let (join_ref, reference) = (message.join_ref.clone(), message.reference.clone());
        self.push(
            join_ref.as_deref(),
            reference.as_deref(),
            &message.topic,
            "phx_reply",
            &payload,
        )
        .await
    }

    async fn refuse(&mut self, message: &Message, reason: &str) -> Result<(), End> {
        self.reply(message, "error", json!({"reason": reason}))
            .await
    }

    /// Refuses a push past one of `extension`'s limits: the reply says why, and so does a
    /// `system` message, which a client that asked for no reply still reads.
    async fn refuse_extension(
        &mut self,
        message: &Message,
        extension: &str,
        reason: &str,
    ) -> Result<(), End> {
        self.refuse(message, reason).await?;
        let name = message
            .topic
            .strip_prefix(TOPIC_PREFIX)
            .unwrap_or(&message.topic);
        let status = json!({
            "extension": extension,
            "status": "error",
            "message": reason,
            "channel": name,
        });
        self.system(message, &status).await
    }

    async fn received(&mut self, decoded: Result<Message, frame::FrameError>) -> Result<(), End> {
        // Nothing to reply to: the frame's refs could not be read.
        let message = decoded.map_err(|_| End::Close(1007, "malformed message"))?;
        match (message.topic.as_str(), message.event.as_str()) {
            ("phoenix", "heartbeat") => self.reply(&message, "ok", json!({})).await,
            (_, "phx_join") => self.join(&message).await,
            _ if !self.channels.contains_key(&message.topic) => {
                self.refuse(&message, "unmatched topic").await
            }
            (_, "phx_leave") => self.leave(&message).await,
            (_, "access_token") => self.access_token(&message).await,
            (_, "broadcast") => self.broadcast(&message).await,
            (_, "presence") => self.presence(&message).await,
            (_, event) => {
                let reason = format!("unknown event: {event}");
                self.refuse(&message, &reason).await
            }
        }
    }

    async fn join(&mut self, message: &Message) -> Result<(), End> {
        let Payload::Json(payload) = &message.payload else {
            return self.refuse(message, "malformed join").await;
        };
        let Some(name) = message.topic.strip_prefix(TOPIC_PREFIX) else {
            return self.refuse(message, "unmatched topic").await;
        };
        let name = name.to_owned();
        let rejoin = self.channels.contains_key(&message.topic);
        if !rejoin && self.channels.len() >= self.hub.limits.max_channels {
            return self
                .refuse(message, "ChannelRateLimitReached: Too many channels")
                .await;
        }
        let config = JoinConfig::read(payload.get("config").unwrap_or(&Value::Null));
        if config.private {
            let reason = format!(
                "Unauthorized: You do not have permissions to read from this Channel topic: {name}"
            );
            return self.refuse(message, &reason).await;
        }
        let token = payload.get("access_token").and_then(Value::as_str);
        let access = match self.channel_role(token) {
            Ok(access) => access,
            Err(error) => return self.refuse(message, &error.0).await,
        };
        // Without a key of its own, a channel tracks under a random one, as Realtime's.
        let presence_key = match config
            .presence_key
            .clone()
            .map_or_else(|| random::uuid().map(|id| id.to_string()), Ok)
        {
            Ok(key) => key,
            Err(_) => {
                return self
                    .refuse(message, "no random source for a presence key")
                    .await
            }
        };
        if rejoin {
            // Phoenix closes a topic's earlier join when the same socket joins it again.
            self.close_channel(&message.topic).await?;
        }
        let requested = config.postgres_changes;
        let presence_enabled = config.presence_enabled;
        let channel = Channel {
            join_ref: message.join_ref.clone(),
            access,
            bindings: requested
                .iter()
                .filter_map(|entry| entry.outcome.clone().ok())
                .collect(),
            broadcast_self: config.broadcast_self,
            broadcast_ack: config.broadcast_ack,
            presence_enabled,
            presence_key,
        };
        self.channels.insert(message.topic.clone(), channel);
        self.show();
        let replies: Vec<Value> = requested.iter().map(|entry| entry.reply.clone()).collect();
        self.reply(message, "ok", json!({"postgres_changes": replies}))
            .await?;
        if presence_enabled {
            let state = self.hub.presence_state(&message.topic);
            let join_ref = message.join_ref.clone();
            self.push(
                join_ref.as_deref(),
                None,
                &message.topic,
                "presence_state",
                &state,
            )
            .await?;
        }
        if requested.is_empty() {
            return Ok(());
        }
        for failure in requested
            .iter()
            .filter_map(|entry| entry.outcome.as_ref().err())
        {
            let status = json!({
                "extension": "postgres_changes",
                "status": "error",
                "message": failure,
                "channel": name,
            });
            self.system(message, &status).await?;
        }
        if requested.iter().any(|entry| entry.outcome.is_ok()) {
            let status = json!({
                "extension": "postgres_changes",
                "status": "ok",
                "message": "Subscribed to PostgreSQL",
                "channel": name,
            });
            self.system(message, &status).await?;
        }
        Ok(())
    }

    async fn system(&mut self, message: &Message, payload: &Value) -> Result<(), End> {
        let join_ref = message.join_ref.clone();
        self.push(join_ref.as_deref(), None, &message.topic, "system", payload)
            .await
    }

    /// When the first channel's token expires.
    fn next_expiry(&self) -> Option<Instant> {
        let now = self.connection.clock.now_seconds();
        self.channels
            .values()
            .filter_map(|channel| channel.access.expires_at)
            .min()
            .map(|exp| {
                let seconds = u64::try_from(exp.saturating_sub(now)).unwrap_or(0);
                Instant::now() + std::time::Duration::from_secs(seconds)
            })
    }

    /// Closes every channel whose token has expired, as hosted Realtime does: a `system` error,
    /// then `phx_close`. A client keeps its channels by sending a fresh `access_token` in time.
    async fn close_expired(&mut self) -> Result<(), End> {
        let now = self.connection.clock.now_seconds();
        let mut expired: Vec<(String, Option<String>)> = self
            .channels
            .iter()
            .filter(|(_, channel)| channel.access.expires_at.is_some_and(|exp| exp <= now))
            .map(|(topic, channel)| (topic.clone(), channel.join_ref.clone()))
            .collect();
        expired.sort();
        for (topic, join_ref) in expired {
            let name = topic
                .strip_prefix(TOPIC_PREFIX)
                .unwrap_or(&topic)
                .to_owned();
            let status = json!({
                "extension": "system",
                "status": "error",
                "message": "Token has expired",
                "channel": name,
            });
            self.push(join_ref.as_deref(), None, &topic, "system", &status)
                .await?;
            self.close_channel(&topic).await?;
        }
        Ok(())
    }

    /// Tells the hub which channels this socket has joined, and for whom.
    fn show(&self) {
        let mut channels: Vec<ChannelView> = self
            .channels
            .iter()
            .map(|(topic, channel)| ChannelView {
                topic: topic.clone(),
                role: channel.access.role.name(),
                sub: channel.access.subject.clone(),
            })
            .collect();
        channels.sort_by(|left, right| left.topic.cmp(&right.topic));
        self.hub.show(self.id, channels);
    }

    fn channel_role(&self, token: Option<&str>) -> Result<ChannelAccess, access::AccessError> {
        let connection = &self.connection;
        access::channel_role(
            &connection.keys,
            &connection.api_key,
            connection.key_role,
            token,
            connection.clock.now_seconds(),
        )
    }

    async fn leave(&mut self, message: &Message) -> Result<(), End> {
        self.reply(message, "ok", json!({})).await?;
        self.close_channel(&message.topic).await
    }

    /// Forgets a channel and tells the client with `phx_close`.
    async fn close_channel(&mut self, topic: &str) -> Result<(), End> {
        let Some(channel) = self.channels.remove(topic) else {
            return Ok(());
        };
        self.hub.untrack(topic, self.id);
        self.show();
        let join_ref = channel.join_ref;
        self.push(
            join_ref.as_deref(),
            join_ref.as_deref(),
            topic,
            "phx_close",
            &json!({}),
        )
        .await
    }

    /// A refreshed token: the channel's role follows it; a bad one closes the channel.
    async fn access_token(&mut self, message: &Message) -> Result<(), End> {
        let token = match &message.payload {
            Payload::Json(payload) => payload.get("access_token").and_then(Value::as_str),
            Payload::BinaryBroadcast { .. } => None,
        };
        match self.channel_role(token) {
            Ok(access) => {
                if let Some(channel) = self.channels.get_mut(&message.topic) {
                    channel.access = access;
                }
                self.show();
                self.reply(message, "ok", json!({})).await
            }
            Err(error) => {
                self.refuse(message, &error.0).await?;
                self.close_channel(&message.topic).await
            }
        }
    }

    async fn broadcast(&mut self, message: &Message) -> Result<(), End> {
        let Some(broadcast) = Broadcast::from_push(&message.payload) else {
            return self
                .refuse(message, "a broadcast needs {type, event, payload}")
                .await;
        };
        let bytes = broadcast.payload_bytes();
        if bytes > MAX_PAYLOAD_BYTES {
            return self
                .refuse_extension(message, "broadcast", PAYLOAD_SIZE_EXCEEDED)
                .await;
        }
        if !self.broadcast_budget.take(bytes, std::time::Instant::now()) {
            let reason = "BroadcastRateLimitReached: this connection broadcasts too much";
            return self.refuse_extension(message, "broadcast", reason).await;
        }
        self.hub.publish_broadcast(TopicBroadcast {
            topic: message.topic.clone(),
            from: Some(self.id),
            broadcast,
        });
        let ack = self
            .channels
            .get(&message.topic)
            .is_some_and(|channel| channel.broadcast_ack);
        if ack {
            self.reply(message, "ok", json!({})).await?;
        }
        Ok(())
    }

    /// `{type: "presence", event: "track" | "untrack", payload}`.
    async fn presence(&mut self, message: &Message) -> Result<(), End> {
        let Payload::Json(payload) = &message.payload else {
            return self.refuse(message, "malformed presence").await;
        };
        let Some(key) = self
            .channels
            .get(&message.topic)
            .map(|channel| channel.presence_key.clone())
        else {
            return self.refuse(message, "unmatched topic").await;
        };
        match payload.get("event").and_then(Value::as_str) {
            Some("track") => {
                let state = match payload.get("payload") {
                    Some(Value::Object(state)) => state.clone(),
                    None | Some(Value::Null) => serde_json::Map::new(),
                    Some(_) => {
                        return self
                            .refuse(message, "a presence payload is an object")
                            .await
                    }
                };
                if let Err(refusal) = self.hub.track(&message.topic, &key, self.id, state) {
                    return self
                        .refuse_extension(message, "presence", refusal.reason())
                        .await;
                }
            }
            Some("untrack") => self.hub.untrack(&message.topic, self.id),
            _ => {
                return self
                    .refuse(message, "a presence event is track or untrack")
                    .await
            }
        }
        self.reply(message, "ok", json!({})).await
    }

    async fn deliver_presence(&mut self, diff: &presence::Diff) -> Result<(), End> {
        let enabled = self
            .channels
            .get(&diff.topic)
            .is_some_and(|channel| channel.presence_enabled);
        if !enabled {
            return Ok(());
        }
        self.push(None, None, &diff.topic, "presence_diff", &diff.payload())
            .await
    }

    async fn deliver_change(&mut self, published: &Published) -> Result<(), End> {
        let change = &published.change;
        let mut messages = Vec::new();
        for (topic, channel) in &self.channels {
            if !change.visible_to(channel.access.role, self.connection.read_access) {
                continue;
            }
            let ids: Vec<u32> = channel
                .bindings
                .iter()
                .filter(|binding| binding.matches(change))
                .map(|binding| binding.id)
                .collect();
            if !ids.is_empty() {
                messages.push((topic.clone(), channel.join_ref.clone(), ids));
            }
        }
        if messages.is_empty() {
            return Ok(());
        }
        let data = published.data();
        for (topic, join_ref, ids) in messages {
            let payload = json!({"ids": ids, "data": data});
            self.push(
                join_ref.as_deref(),
                None,
                &topic,
                "postgres_changes",
                &payload,
            )
            .await?;
        }
        Ok(())
    }

    async fn deliver_broadcast(&mut self, broadcast: &TopicBroadcast) -> Result<(), End> {
        let Some(channel) = self.channels.get(&broadcast.topic) else {
            return Ok(());
        };
        if broadcast.from == Some(self.id) && !channel.broadcast_self {
            return Ok(());
        }
        match frame::encode_broadcast(self.connection.vsn, &broadcast.topic, &broadcast.broadcast) {
            Some(outgoing) => self.send(outgoing).await,
            None => Ok(()),
        }
    }
}

/// Whether reading failed because the client sent a message or frame over the limits.
fn too_big(error: &axum::Error) -> bool {
    let mut cause = std::error::Error::source(error);
    while let Some(error) = cause {
        if let Some(tungstenite) = error.downcast_ref::<tungstenite::Error>() {
            return matches!(tungstenite, tungstenite::Error::Capacity(_));
        }
        cause = error.source();
    }
    false
}
