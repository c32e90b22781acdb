//! Supabase Realtime's subset for the logbook, behind the API gateway's key check:
//!
//! | Route | |
//! |---|---|
//! | `GET /realtime/v1/websocket?apikey=...&vsn=...` | Phoenix channels over a WebSocket ([`socket`]) |
//! | `POST /realtime/v1/api/broadcast` | `{messages: [{topic, event, payload}]}` broadcast without a socket; 202 |
//! | `DELETE /emulator/v1/realtime/sockets` | drops every open socket, as a restart would (tests; service-role key in the `apikey` header) |
//!
//! A socket speaks the serializer its `vsn` names ([`frame`]): 1.0.0 (the default) or 2.0.0.
//! A channel joined with `config.postgres_changes` receives the committed changes of
//! `public.geocache_logs` that its entries match ([`binding`], [`filter`]) and its role may read
//! ([`change`], [`access`]); `config.broadcast` sets whether the sender hears its own broadcasts
//! (`self`) and whether they are acknowledged (`ack`). Presence is not served: a `presence` push
//! is refused.

pub mod access;
pub mod binding;
pub mod change;
pub mod filter;
pub mod frame;
pub mod hub;
pub mod socket;

use crate::error::ApiError;
use crate::gateway::{self, ApiKeyRole, ServiceRoleKey};
use crate::realtime::frame::{Broadcast, BroadcastBody, Vsn};
use crate::realtime::hub::TopicBroadcast;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{middleware, Extension, Json, Router};
use serde_json::Value;

pub use hub::{Hub, RealtimeLimits};

pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/realtime/v1/websocket", get(websocket))
        .route("/realtime/v1/api/broadcast", post(http_broadcast))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            gateway::require_api_key,
        ))
        .with_state(state.clone());
    let admin = Router::new()
        .route("/emulator/v1/realtime/sockets", delete(drop_sockets))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            gateway::require_api_key_header,
        ))
        .with_state(state);
    api.merge(admin)
}

async fn websocket(
    State(state): State<AppState>,
    Extension(ApiKeyRole(key_role)): Extension<ApiKeyRole>,
    headers: HeaderMap,
    uri: Uri,
    upgrade: WebSocketUpgrade,
) -> Response {
    let vsn = query_param(&uri, "vsn");
    let Some(vsn) = Vsn::parse(vsn.as_deref()) else {
        return ApiError::Emulator {
            status: StatusCode::FORBIDDEN,
            message: format!(
                "unsupported vsn {}: this server speaks 1.0.0 and 2.0.0",
                vsn.unwrap_or_default()
            ),
        }
        .into_response();
    };
    // The gateway has checked the key; the header wins over the URL, as there.
    let api_key = headers
        .get("apikey")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
        .or_else(|| query_param(&uri, "apikey"))
        .unwrap_or_default()
        .trim()
        .to_owned();
    let connection = socket::Connection {
        vsn,
        api_key,
        key_role,
        keys: state.keys.clone(),
        clock: state.clock.clone(),
    };
    let hub = state.realtime.clone();
    upgrade.on_upgrade(move |ws| socket::serve(ws, connection, hub))
}

fn query_param(uri: &Uri, name: &str) -> Option<String> {
    form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
}

/// supabase-js's broadcast before a channel has joined: every message goes to the channel of
/// its `topic` (the name without `realtime:`).
async fn http_broadcast(
    State(state): State<AppState>,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let invalid = |message: &str| ApiError::Emulator {
        status: StatusCode::BAD_REQUEST,
        message: message.to_owned(),
    };
    let body: Value = serde_json::from_slice(&body).map_err(|_| invalid("the body is not JSON"))?;
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("`messages` must be a list"))?;
    let mut broadcasts = Vec::with_capacity(messages.len());
    for message in messages {
        let text = |key: &str| message.get(key).and_then(Value::as_str);
        let (Some(topic), Some(event)) = (text("topic"), text("event")) else {
            return Err(invalid("each message needs a `topic` and an `event`"));
        };
        broadcasts.push(TopicBroadcast {
            topic: format!("realtime:{topic}"),
            from: None,
            broadcast: Broadcast {
                event: event.to_owned(),
                payload: BroadcastBody::Json(message.get("payload").cloned().unwrap_or_default()),
            },
        });
    }
    for broadcast in broadcasts {
        state.realtime.publish_broadcast(broadcast);
    }
    Ok(StatusCode::ACCEPTED)
}

async fn drop_sockets(State(state): State<AppState>, _: ServiceRoleKey) -> Json<Value> {
    let dropped = state.realtime.drop_all();
    Json(serde_json::json!({ "dropped": dropped }))
}
