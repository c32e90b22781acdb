//! What Realtime's HTTP routes answer by themselves: a WebSocket asking for a serializer version
//! the emulator does not speak or past the socket cap, and a broadcast body it cannot read or
//! will not send. All carry the gateway's `{"message"}` body ([`ApiError::Emulator`]).

use crate::error::ApiError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RealtimeError {
    /// The socket's `vsn` query parameter, which is neither 1.0.0 nor 2.0.0: 403.
    UnsupportedVsn(String),
    /// A broadcast over HTTP whose body is not what the route takes: 400.
    InvalidBroadcast(&'static str),
    /// A broadcast payload over the size limit: 413.
    PayloadTooLarge,
    /// A socket past `--realtime-max-connections`: 429.
    TooManyConnections,
}

impl IntoResponse for RealtimeError {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            RealtimeError::UnsupportedVsn(vsn) => (
                StatusCode::FORBIDDEN,
                format!("unsupported vsn {vsn}: this server speaks 1.0.0 and 2.0.0"),
            ),
            RealtimeError::InvalidBroadcast(problem) => {
                (StatusCode::BAD_REQUEST, problem.to_owned())
            }
            RealtimeError::PayloadTooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                crate::realtime::size::PAYLOAD_SIZE_EXCEEDED.to_owned(),
            ),
            RealtimeError::TooManyConnections => (
                StatusCode::TOO_MANY_REQUESTS,
                "ConnectionRateLimitReached: Too many connected users".to_owned(),
            ),
        };
        ApiError::Emulator { status, message }.into_response()
    }
}
