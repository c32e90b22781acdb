//! Broadcast over HTTP, for a client that has not joined (supabase-js's fallback of `send` and
//! its `httpSend`): each message goes to the sockets joined to `realtime:<name>`, as if a socket
//! had pushed it. Both answer 202 Accepted, as hosted Realtime does; a payload over
//! [`MAX_PAYLOAD_BYTES`] is refused with 413, and with it every message of its request.

use crate::realtime::error::RealtimeError;
use crate::realtime::frame::{Broadcast, BroadcastBody};
use crate::realtime::hub::TopicBroadcast;
use crate::realtime::size::MAX_PAYLOAD_BYTES;
use crate::realtime::RealtimeState;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use serde_json::Value;

/// `POST /realtime/v1/api/broadcast` with `{messages: [{topic, event, payload, private}]}`;
/// `topic` is the channel's name. Every message is checked before any is sent.
pub async fn broadcast(
    State(state): State<RealtimeState>,
    body: Bytes,
) -> Result<StatusCode, RealtimeError> {
    let body: Value = serde_json::from_slice(&body)
        .map_err(|_| RealtimeError::InvalidBroadcast("the body is not JSON"))?;
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .ok_or(RealtimeError::InvalidBroadcast("`messages` must be a list"))?;
    let mut broadcasts = Vec::with_capacity(messages.len());
    for message in messages {
        let text = |key: &str| message.get(key).and_then(Value::as_str);
        let (Some(name), Some(event)) = (text("topic"), text("event")) else {
            return Err(RealtimeError::InvalidBroadcast(
                "each message needs a `topic` and an `event`",
            ));
        };
        let payload = message.get("payload").cloned().unwrap_or_default();
        broadcasts.push(topic_broadcast(name, event, BroadcastBody::Json(payload)));
    }
    if broadcasts.iter().any(oversized) {
        return Err(RealtimeError::PayloadTooLarge);
    }
    for broadcast in broadcasts {
        state.hub.publish_broadcast(broadcast);
    }
    Ok(StatusCode::ACCEPTED)
}

/// `POST /realtime/v1/api/broadcast/{name}/events/{event}`: a JSON body is the payload, an
/// `application/octet-stream` body travels as bytes.
pub async fn send(
    State(state): State<RealtimeState>,
    Path((name, event)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, RealtimeError> {
    let binary = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/octet-stream"));
    let payload = if binary {
        BroadcastBody::Bytes(body.to_vec())
    } else {
        BroadcastBody::Json(
            serde_json::from_slice(&body)
                .map_err(|_| RealtimeError::InvalidBroadcast("the body is not JSON"))?,
        )
    };
    let broadcast = topic_broadcast(&name, &event, payload);
    if oversized(&broadcast) {
        return Err(RealtimeError::PayloadTooLarge);
    }
    state.hub.publish_broadcast(broadcast);
    Ok(StatusCode::ACCEPTED)
}

fn oversized(broadcast: &TopicBroadcast) -> bool {
    broadcast.broadcast.payload_bytes() > MAX_PAYLOAD_BYTES
}

fn topic_broadcast(name: &str, event: &str, payload: BroadcastBody) -> TopicBroadcast {
    TopicBroadcast {
        topic: format!("realtime:{name}"),
        from: None,
        broadcast: Broadcast {
            event: event.to_owned(),
            payload,
        },
    }
}
