//! Applies the fault plan to requests for the Supabase APIs (`/rest/v1`, `/auth/v1`). The
//! emulator's own endpoints (`/emulator/v1`, faults included) and the health checks are never
//! faulted. Runs inside the CORS layer, so injected errors still carry CORS headers and a
//! browser sees their status rather than an opaque network error.

use crate::error::ApiError;
use crate::faults::injector::{Answered, Chosen};
use crate::faults::plan::{ErrorBody, Fault};
use crate::faults::FaultsState;
use crate::http::connection::{ConnectionTap, Cut};
use crate::rest::error::RestError;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use std::time::Duration;

/// Whether the plan may touch a request to `path`.
pub fn in_scope(path: &str) -> bool {
    ["/rest/v1", "/auth/v1"].iter().any(|api| {
        path.strip_prefix(api)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

pub async fn inject(State(state): State<FaultsState>, request: Request, next: Next) -> Response {
    if !in_scope(request.uri().path()) {
        return next.run(request).await;
    }
    let decision = state
        .injector
        .decide(request.method().as_str(), request.uri().path());
    if decision.is_empty() {
        return next.run(request).await;
    }
    if !decision.delay.is_zero() {
        tokio::time::sleep(decision.delay).await;
    }
    let response = match decision.fault {
        None => next.run(request).await,
        Some(chosen) => apply(chosen, request, next, state.max_body_bytes).await,
    };
    if decision.answered.is_empty() {
        return response;
    }
    // Signalled once the body has been handed to the connection: hyper drops it then.
    let answered = decision.answered;
    let guard = SignalOnDrop(answered);
    response.map(|body| {
        Body::new(body.map_frame(move |frame| {
            let _ = &guard;
            frame
        }))
    })
}

struct SignalOnDrop(Vec<Answered>);

impl Drop for SignalOnDrop {
    fn drop(&mut self) {
        for answered in &self.0 {
            answered.signal();
        }
    }
}

async fn apply(chosen: Chosen, request: Request, next: Next, max_body_bytes: usize) -> Response {
    let tap = request
        .extensions()
        .get::<ConnectInfo<ConnectionTap>>()
        .map(|ConnectInfo(tap)| tap.clone());
    let is_head = request.method() == Method::HEAD;
    match chosen.fault {
        Fault::Latency { .. } => next.run(request).await,
        Fault::Status { status, body } => {
            process_or_drain(request, next, chosen.applies_request, max_body_bytes).await;
            injected_status(status, body)
        }
        Fault::DropBeforeResponse => {
            process_or_drain(request, next, chosen.applies_request, max_body_bytes).await;
            cut(
                tap,
                Cut::BeforeResponse,
                StatusCode::BAD_GATEWAY.into_response(),
            )
        }
        Fault::DropMidResponse => {
            let (response, body) = buffered(next.run(request).await).await;
            let order = if body.is_empty() {
                Cut::InHead
            } else {
                Cut::AfterHead {
                    body_bytes: body.len() / 2,
                }
            };
            cut(tap, order, with_body(response, body))
        }
        Fault::TruncateBody { keep_bytes } => {
            let response = next.run(request).await;
            if !response.status().is_success() || is_head {
                return response;
            }
            let (response, body) = buffered(response).await;
            let keep = keep_bytes.unwrap_or(body.len() / 2).min(body.len());
            with_body(response, body.slice(..keep))
        }
        Fault::NonJsonBody { body, content_type } => {
            let response = next.run(request).await;
            if !response.status().is_success() || is_head {
                return response;
            }
            let (mut response, _) = buffered(response).await;
            if let Some(content_type) = content_type.and_then(|text| text.parse().ok()) {
                response
                    .headers_mut()
                    .insert(header::CONTENT_TYPE, content_type);
            }
            with_body(response, Bytes::from(body))
        }
        Fault::OutOfOrder { max_hold_ms } => {
            let response = next.run(request).await;
            if let Some(hold) = chosen.hold {
                hold.wait_for_later(Duration::from_millis(max_hold_ms))
                    .await;
            }
            response
        }
    }
}

/// Runs the request (a write commits) and discards the answer, or reads and discards the body:
/// closing a socket with unread request bytes would reset it, and the client could lose the
/// injected answer.
async fn process_or_drain(request: Request, next: Next, process: bool, max_body_bytes: usize) {
    if process {
        let response = next.run(request).await;
        let _ = axum::body::to_bytes(response.into_body(), usize::MAX).await;
    } else {
        let _ = axum::body::to_bytes(request.into_body(), max_body_bytes).await;
    }
}

/// Orders the connection to cut `response` short. In-process callers without the emulator's
/// listener have no connection to cut: they get an internal error saying so.
fn cut(tap: Option<ConnectionTap>, order: Cut, response: Response) -> Response {
    match tap {
        Some(tap) => {
            tap.cut_next_response(order);
            response
        }
        None => ApiError::internal(
            "dropping connections needs the emulator's listener (geocache_emulator::run)",
        )
        .into_response(),
    }
}

async fn buffered(response: Response) -> (Response, Bytes) {
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    (Response::from_parts(parts, Body::empty()), bytes)
}

/// `response` with `body`, its length set by the body itself.
fn with_body(response: Response, body: Bytes) -> Response {
    let (mut parts, _) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}

fn injected_status(status: u16, body: ErrorBody) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match body {
        ErrorBody::Postgrest => RestError::injected(status).into_response(),
        ErrorBody::Plain => {
            let text = match status.canonical_reason() {
                Some(reason) => format!("{} {reason}", status.as_u16()),
                None => status.as_u16().to_string(),
            };
            let mut response = (status, text).into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            response
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_supabase_apis_are_in_scope() {
        for path in ["/rest/v1", "/rest/v1/geocache_logs", "/auth/v1/token"] {
            assert!(in_scope(path), "{path}");
        }
        for path in [
            "/",
            "/health",
            "/emulator/v1/faults",
            "/emulator/v1/sms",
            "/rest/v10/x",
            "/auth/v1x",
        ] {
            assert!(!in_scope(path), "{path}");
        }
    }
}
