//! Supabase's API gateway in front of every API (`/rest/v1`, `/auth/v1`): a request
//! must carry an API key (`apikey` header or query parameter) signed with the project's secret
//! whose role is `anon` or `service_role`, and a body no larger than the configured limit
//! (`--max-body-bytes`).

use crate::db::AppState;
use crate::error::ApiError;
use crate::keys::{Keys, Role};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The default body limit: a 1 MB message fits even if every character is escaped in JSON.
pub const DEFAULT_MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// The role of the request's verified API key, for the services behind the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiKeyRole(pub Role);

pub async fn require_api_key(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let checked = match api_key_role(&state.keys, &request, state.clock.now_seconds()) {
        Ok(role) => limit_body(request, state.max_body_bytes)
            .await
            .map(|mut request| {
                request.extensions_mut().insert(ApiKeyRole(role));
                request
            }),
        Err(error) => Err(error),
    };
    match checked {
        Ok(request) => next.run(request).await,
        Err(error) => error.into_response(),
    }
}

fn api_key_role(keys: &Keys, request: &Request, now: i64) -> Result<Role, ApiError> {
    let from_header = request
        .headers()
        .get("apikey")
        .map(|value| value.to_str().unwrap_or_default().to_owned());
    let from_query = || {
        form_urlencoded::parse(request.uri().query().unwrap_or_default().as_bytes())
            .find(|(key, _)| key == "apikey")
            .map(|(_, value)| value.into_owned())
    };
    let key = from_header
        .or_else(from_query)
        .ok_or_else(ApiError::no_api_key)?;
    key_role(keys, &key, now)
}

/// The role of an API key: it must verify and name `anon` or `service_role`. `now` is in Unix
/// seconds.
pub fn key_role(keys: &Keys, key: &str, now: i64) -> Result<Role, ApiError> {
    let claims = keys
        .verify(key.trim(), now)
        .map_err(|_| ApiError::invalid_api_key())?;
    match Keys::role_of(&claims) {
        Ok(role @ (Role::Anon | Role::ServiceRole)) => Ok(role),
        _ => Err(ApiError::invalid_api_key()),
    }
}

/// Reads the body up to `limit` bytes: a declared `Content-Length` over the limit is refused
/// before reading, a chunked body as soon as it passes the limit.
async fn limit_body(request: Request, limit: usize) -> Result<Request, ApiError> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(ApiError::payload_too_large());
    }
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, limit).await.map_err(|error| {
        let over_limit = std::error::Error::source(&error)
            .is_some_and(|source| source.is::<http_body_util::LengthLimitError>());
        if over_limit {
            ApiError::payload_too_large()
        } else {
            ApiError::invalid_body("Could not read the request body")
        }
    })?;
    Ok(Request::from_parts(parts, Body::from(bytes)))
}
