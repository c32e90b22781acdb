//! What the Realtime state machine asks the bindings to do, and the names it gives channels,
//! pushes and statuses.

use crate::{HttpRequest, RequestTimeout, UnixTime};

use super::dispatch::Delivery;
use super::message::Frame;

/// A channel of one [`Realtime`](super::Realtime), stable while it exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChannelId(pub u32);

/// A `send` or `unsubscribe` whose promise waits for a [`PushOutcome`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PushId(pub u32);

/// The statuses `subscribe`'s callback receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Subscribed,
    TimedOut,
    Closed,
    ChannelError,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Subscribed => "SUBSCRIBED",
            Status::TimedOut => "TIMED_OUT",
            Status::Closed => "CLOSED",
            Status::ChannelError => "CHANNEL_ERROR",
        }
    }
}

/// What `send` and `unsubscribe` resolve to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushOutcome {
    Ok,
    TimedOut,
    Error,
}

impl PushOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            PushOutcome::Ok => "ok",
            PushOutcome::TimedOut => "timed out",
            PushOutcome::Error => "error",
        }
    }
}

/// One thing for the bindings to do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Open a WebSocket to this URL (any previous one is gone).
    Connect(String),
    /// Send a frame on the open socket.
    Send(Frame),
    /// Close the socket and forget it: no close event is expected back.
    Close { code: u16, reason: &'static str },
    /// Tell the channel's `subscribe` callback.
    Status {
        channel: ChannelId,
        status: Status,
        message: Option<String>,
    },
    /// Call these listeners of the channel with the payload.
    Deliver {
        channel: ChannelId,
        delivery: Delivery,
    },
    /// Resolve a `send` or `unsubscribe`.
    Settle { push: PushId, outcome: PushOutcome },
    /// Send this request (a broadcast the socket cannot carry), aborting it after `timeout`,
    /// then resolve the `send` with [`broadcast_outcome`](super::broadcast_outcome) of its answer.
    Post {
        push: PushId,
        request: HttpRequest,
        timeout: RequestTimeout,
    },
    /// The channel is gone: drop its callbacks.
    Forget(ChannelId),
    /// Call `tick` at this moment (replacing any earlier timer).
    ArmTimer(UnixTime),
    /// No timer is needed any more.
    ClearTimer,
}
