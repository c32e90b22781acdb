//! Supabase Realtime as realtime-js speaks it: Phoenix channels over
//! `/realtime/v1/websocket`, as pure functions and one state machine over an explicit `now`.
//!
//! [`Vsn`] encodes and decodes frames for both serializers, [`join_payload`] and [`join_reply`]
//! make and read a channel's join, [`deliver`] turns server messages into what listeners
//! receive (payloads stay JSON text throughout), and [`Realtime`] decides everything timed: heartbeats, the join
//! timeout, rejoin and reconnect back-off, leaving, the token pushed on change. A broadcast on a
//! channel that cannot push goes over HTTP instead ([`broadcast_request`]). The bindings own
//! the WebSocket, the one timer it asks for, and that request's `fetch`.
//!
//! ```
//! use geocache_core::realtime::{Action, ChannelOptions, Realtime, Vsn};
//! use geocache_core::{ClientConfig, UnixTime};
//!
//! let config = ClientConfig::new("http://127.0.0.1:54321", "sb_publishable_k")?;
//! let mut realtime = Realtime::new(&config, Vsn::V2);
//! let room = realtime.channel("room", ChannelOptions::default());
//! let actions = realtime.subscribe(room, UnixTime::from_millis(0.0)).expect("a new channel");
//! assert_eq!(actions, [Action::Connect(
//!     "ws://127.0.0.1:54321/realtime/v1/websocket?apikey=sb_publishable_k&vsn=2.0.0".into()
//! )]);
//! # Ok::<(), geocache_core::ConfigError>(())
//! ```

mod action;
mod channel;
mod columns;
mod dispatch;
mod error;
mod http_broadcast;
mod join;
mod json_text;
mod machine;
mod message;
mod serializer;
mod socket_url;
pub mod timing;

pub use action::{Action, ChannelId, PushId, PushOutcome, Status};
pub use channel::ChannelState;
pub use columns::convert_cell;
pub use dispatch::{deliver, Delivery};
pub use error::RealtimeError;
pub use http_broadcast::{broadcast_outcome, broadcast_request, broadcast_timeout};
pub use join::{
    change_filters, join_payload, join_reply, ChangeFilter, ChannelOptions, JoinReply, Listener,
    MISMATCH_MESSAGE,
};
pub use machine::Realtime;
pub use message::{Frame, Message};
pub use serializer::{BroadcastPush, Vsn};
pub use socket_url::socket_url;
