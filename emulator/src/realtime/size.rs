//! How large what a client sends Realtime may be, over a socket or HTTP.

/// The largest WebSocket message (and frame) a socket may send; a larger one closes the socket
/// with 1009 before it is read whole. Far above any logbook message, far below tungstenite's
/// 64 MiB default, which let a handful of messages hold hundreds of MiB.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;

/// The largest broadcast payload (its JSON text, or its bytes), over a socket or HTTP, and the
/// largest presence state one track may hold: `PayloadSizeExceeded` beyond it.
pub const MAX_PAYLOAD_BYTES: usize = 32 * 1024;

/// The reason a broadcast over [`MAX_PAYLOAD_BYTES`] is refused with, over a socket or HTTP.
pub const PAYLOAD_SIZE_EXCEEDED: &str =
    "PayloadSizeExceeded: the broadcast payload is over the size limit";
