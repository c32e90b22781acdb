//! Why a Realtime frame or call was refused: one error type for the protocol layer.

/// A frame that is not the protocol, or a call the protocol cannot carry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RealtimeError {
    /// A text frame that is not the serializer's JSON shape.
    #[error("invalid realtime frame: {reason}")]
    InvalidFrame { reason: String },
    /// A binary frame of a kind this client does not read (only server broadcasts, kind 4).
    #[error("unsupported binary frame kind {kind}")]
    UnsupportedKind { kind: u8 },
    /// A binary broadcast field longer than its one-byte length allows.
    #[error("{field} is {len} bytes, more than the 255 a binary frame allows")]
    FieldTooLong { field: &'static str, len: usize },
    /// A broadcast payload that is not JSON text.
    #[error("the broadcast payload is not JSON")]
    PayloadNotJson,
    /// `subscribe` called twice on one channel, as realtime-js refuses it.
    #[error("tried to subscribe multiple times: subscribe can only be called once per channel")]
    AlreadySubscribed,
    /// What a CHANNEL_ERROR status carries: the server refused the join (its reason), or its
    /// postgres_changes did not match the listeners'.
    #[error("{message}")]
    ChannelError { message: String },
    /// A call on a channel that was removed.
    #[error("the channel was removed")]
    UnknownChannel,
}

impl RealtimeError {
    /// The stable code the bindings put on the JS error.
    pub fn code(&self) -> &'static str {
        match self {
            RealtimeError::InvalidFrame { .. } => "invalid_frame",
            RealtimeError::UnsupportedKind { .. } => "unsupported_frame",
            RealtimeError::FieldTooLong { .. } => "field_too_long",
            RealtimeError::PayloadNotJson => "invalid_payload",
            RealtimeError::AlreadySubscribed => "already_subscribed",
            RealtimeError::ChannelError { .. } => "channel_error",
            RealtimeError::UnknownChannel => "unknown_channel",
        }
    }

    pub(crate) fn invalid(reason: impl Into<String>) -> Self {
        RealtimeError::InvalidFrame {
            reason: reason.into(),
        }
    }
}
