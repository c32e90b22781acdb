//! One Phoenix channel message and the frame it travels in.

/// `{join_ref, ref, topic, event, payload}`: every message either way, whatever the serializer.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The ref of the channel's current join (pushes carry it so stale replies can be told).
    pub join_ref: Option<String>,
    /// The push's own ref, echoed by its `phx_reply`.
    pub msg_ref: Option<String>,
    pub topic: String,
    pub event: String,
    /// The payload as JSON text.
    pub payload: String,
}

impl Message {
    /// `payload` is JSON text (the caller's to make valid).
    pub fn new(
        topic: impl Into<String>,
        event: impl Into<String>,
        payload: impl Into<String>,
    ) -> Self {
        Message {
            join_ref: None,
            msg_ref: None,
            topic: topic.into(),
            event: event.into(),
            payload: payload.into(),
        }
    }

    pub fn with_refs(mut self, join_ref: Option<String>, msg_ref: Option<String>) -> Self {
        self.join_ref = join_ref;
        self.msg_ref = msg_ref;
        self
    }
}

/// A WebSocket frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    Text(String),
    Binary(Vec<u8>),
}
