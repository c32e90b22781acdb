//! Supabase Realtime's subset for the logbook, behind the API gateway's key check:
//!
//! | Route | |
//! |---|---|
//! | `GET /realtime/v1/websocket?apikey=...&vsn=...` | Phoenix channels over a WebSocket ([`socket`]) |
//! | `POST /realtime/v1/api/broadcast` | `{messages: [{topic, event, payload}]}` broadcast without a socket; 202 ([`http`]) |
//! | `POST /realtime/v1/api/broadcast/{name}/events/{event}` | supabase-js's `httpSend`: the body is the payload; 202 |
//! | `GET /emulator/v1/realtime/sockets` | the open sockets, their channels and each channel's role and user (tests) |
//! | `DELETE /emulator/v1/realtime/sockets` | drops every open socket, as a restart would (tests) |
//!
//! The two test routes need a service-role key in the `apikey` header, as `/emulator/v1/faults`.
//!
//! A socket speaks the serializer its `vsn` names ([`frame`]): 1.0.0 (the default) or 2.0.0.
//! A channel joined with `config.postgres_changes` receives the committed changes of
//! `public.geocache_logs` that its entries match ([`binding`], [`filter`]) and its role may read
//! ([`change`], [`access`]); `config.broadcast` sets whether the sender hears its own broadcasts
//! (`self`) and whether they are acknowledged (`ack`); `config.presence` (`enabled`, `key`) turns on
//! `presence_state` and `presence_diff` for the channel, and `presence` pushes track and untrack
//! ([`presence`]).
//!
//! Sockets are counted from their upgrade: past `max_connections` the upgrade itself is refused
//! (429, `ConnectionRateLimitReached`). What a socket may send is bounded ([`socket`]).

pub mod access;
pub mod binding;
pub mod budget;
pub mod change;
pub mod error;
pub mod filter;
pub mod frame;
pub mod http;
pub mod hub;
pub mod join;
pub mod presence;
pub mod size;
pub mod socket;

use crate::clock::Clock;
use crate::gateway::{self, ApiKeyRole, Gateway, ServiceRoleKey};
use crate::keys::Keys;
use crate::read_access::ReadAccess;
use crate::realtime::error::RealtimeError;
use crate::realtime::frame::Vsn;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{middleware, Extension, Json, Router};
use serde_json::Value;
use std::sync::Arc;

use hub::SocketView;
pub use hub::{Hub, RealtimeLimits};
use size::MAX_MESSAGE_BYTES;

/// What Realtime's routes need; cheap to clone.
#[derive(Clone, Debug)]
pub struct RealtimeState {
    pub keys: Arc<Keys>,
    pub clock: Clock,
    /// Who may read the table, so who receives its changes.
    pub read_access: ReadAccess,
    /// The sockets, their channels and limits, and the bus that carries committed changes.
    pub hub: Arc<Hub>,
}

pub fn router(state: RealtimeState, gateway: Gateway) -> Router {
    let api = Router::new()
        .route("/realtime/v1/websocket", get(websocket))
        .route("/realtime/v1/api/broadcast", post(http::broadcast))
        .route(
            "/realtime/v1/api/broadcast/{name}/events/{event}",
            post(http::send),
        )
        .route_layer(middleware::from_fn_with_state(
            gateway.clone(),
            gateway::require_api_key,
        ))
        .with_state(state.clone());
    let admin = Router::new()
        .route(
            "/emulator/v1/realtime/sockets",
            get(list_sockets).delete(drop_sockets),
        )
        .route_layer(middleware::from_fn_with_state(
            gateway,
            gateway::require_api_key_header,
        ))
        .with_state(state);
    api.merge(admin)
}

async fn websocket(
    State(state): State<RealtimeState>,
    Extension(ApiKeyRole(key_role)): Extension<ApiKeyRole>,
    headers: HeaderMap,
    uri: Uri,
    upgrade: WebSocketUpgrade,
) -> Response {
    let vsn = query_param(&uri, "vsn");
    let Some(vsn) = Vsn::parse(vsn.as_deref()) else {
        return RealtimeError::UnsupportedVsn(vsn.unwrap_or_default()).into_response();
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
        read_access: state.read_access,
    };
    let Some(slot) = state.hub.reserve() else {
        return RealtimeError::TooManyConnections.into_response();
    };
    let hub = state.hub.clone();
    upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |ws| socket::serve(ws, connection, hub, slot))
}

fn query_param(uri: &Uri, name: &str) -> Option<String> {
    form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
}

async fn list_sockets(
    State(state): State<RealtimeState>,
    _: ServiceRoleKey,
) -> Json<Vec<SocketView>> {
    Json(state.hub.sockets())
}

async fn drop_sockets(State(state): State<RealtimeState>, _: ServiceRoleKey) -> Json<Value> {
    let dropped = state.hub.drop_all();
    Json(serde_json::json!({ "dropped": dropped }))
}
