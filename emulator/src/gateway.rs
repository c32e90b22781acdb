//! Supabase's API gateway in front of every API (`/rest/v1`, `/auth/v1`, `/emulator/v1`): a
//! request must carry an API key (`apikey` header or query parameter) and a body no larger than
//! the configured limit (`--max-body-bytes`). The rest of a refused body is read and discarded
//! behind the 413 ([`crate::http::linger`]), so the client sees the answer rather than a reset.
//!
//! The emulator's own endpoints take the key from the header only: a key in a URL ends up in
//! logs and histories, and a header forces a browser's CORS preflight, so a page cannot fire a
//! request at them blind.
//!
//! The key is either a new-format key (`sb_publishable_...` acts as `anon`, `sb_secret_...` as
//! `service_role`; any other `sb_` key is refused and none is ever read as a JWT) or a legacy JWT
//! signed with the project's secret whose role is `anon` or `service_role`. A secret key from a
//! browser is refused. An `sb_` key as `Authorization: Bearer` must equal the `apikey`; the
//! gateway then hands the services its role's JWT in its place, as the hosted gateway does, so
//! PostgREST and the auth server only ever see JWTs. Any other bearer token passes unchanged.

use crate::clock::Clock;
use crate::error::ApiError;
use crate::http::{linger, pace};
use crate::keys::api_keys::{NEW_FORMAT_PREFIX, SECRET_PREFIX};
use crate::keys::{Keys, Role};
use axum::body::Body;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use std::sync::Arc;

/// The default body limit: a 1 MB message fits even if every character is escaped in JSON.
pub const DEFAULT_MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// What the gateway checks requests against; cheap to clone.
#[derive(Clone, Debug)]
pub struct Gateway {
    pub keys: Arc<Keys>,
    pub clock: Clock,
    /// Request bodies larger than this are refused (413).
    pub max_body_bytes: usize,
}

/// The role of the request's verified API key, for the services behind the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiKeyRole(pub Role);

/// An extractor for routes only a service-role key may call (the emulator's own endpoints).
#[derive(Debug, Clone, Copy)]
pub struct ServiceRoleKey;

impl<S: Send + Sync> FromRequestParts<S> for ServiceRoleKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let ApiKeyRole(role) = parts
            .extensions
            .get::<ApiKeyRole>()
            .copied()
            .ok_or_else(|| ApiError::internal("a route for service-role keys lacks the gateway"))?;
        role.require_service_role(|_| ApiError::service_role_key_required())?;
        Ok(ServiceRoleKey)
    }
}

/// Where a route reads the API key from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeySources {
    /// The `apikey` header, else the `apikey` query parameter (Supabase's APIs).
    HeaderOrQuery,
    /// The `apikey` header only (the emulator's own endpoints).
    HeaderOnly,
}

/// The gateway of Supabase's APIs.
pub async fn require_api_key(state: State<Gateway>, request: Request, next: Next) -> Response {
    guard(state, KeySources::HeaderOrQuery, request, next).await
}

/// The gateway of the emulator's own endpoints: the key in the `apikey` header only.
pub async fn require_api_key_header(
    state: State<Gateway>,
    request: Request,
    next: Next,
) -> Response {
    guard(state, KeySources::HeaderOnly, request, next).await
}

/// The gateway of Storage's routes: the key check without reading the body, which the upload
/// routes stream to disk under their own limits (and the JSON routes bound themselves).
pub async fn require_api_key_streaming(
    State(state): State<Gateway>,
    request: Request,
    next: Next,
) -> Response {
    match admit(
        &state.keys,
        KeySources::HeaderOrQuery,
        request,
        state.clock.now_seconds(),
    ) {
        Ok((role, mut request)) => {
            request.extensions_mut().insert(ApiKeyRole(role));
            next.run(request).await
        }
        Err(error) => error.into_response(),
    }
}

async fn guard(
    State(state): State<Gateway>,
    sources: KeySources,
    request: Request,
    next: Next,
) -> Response {
    let checked = match admit(&state.keys, sources, request, state.clock.now_seconds()) {
        Ok((role, request)) => {
            limit_body(request, state.max_body_bytes)
                .await
                .map(|mut request| {
                    request.extensions_mut().insert(ApiKeyRole(role));
                    request
                })
        }
        Err(error) => Err(BodyRefusal::Other(error)),
    };
    match checked {
        Ok(request) => next.run(request).await,
        Err(refusal @ (BodyRefusal::TooLarge | BodyRefusal::TooSlow)) => {
            let error = match refusal {
                BodyRefusal::TooSlow => ApiError::body_too_slow(),
                _ => ApiError::payload_too_large(),
            };
            let mut response = error.into_response();
            // The body may not have been read to its end.
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            response
        }
        Err(BodyRefusal::Other(error)) => error.into_response(),
    }
}

/// Why the gateway refused a request.
enum BodyRefusal {
    TooLarge,
    /// It fell behind the pace a body must keep.
    TooSlow,
    Other(ApiError),
}

impl From<ApiError> for BodyRefusal {
    fn from(error: ApiError) -> BodyRefusal {
        BodyRefusal::Other(error)
    }
}

/// Applies the key rules: the key's role, and the request as the services behind see it.
fn admit(
    keys: &Keys,
    sources: KeySources,
    mut request: Request,
    now: i64,
) -> Result<(Role, Request), ApiError> {
    let key = match (api_key(&request), sources) {
        (Some(key), _) => key,
        (None, KeySources::HeaderOnly) if query_key(&request).is_some() => {
            return Err(ApiError::emulator_key_in_query())
        }
        (None, KeySources::HeaderOnly) => return Err(ApiError::no_api_key()),
        (None, KeySources::HeaderOrQuery) => {
            query_key(&request).ok_or_else(ApiError::no_api_key)?
        }
    };
    let key = key.trim();
    let role = key_role(keys, key, now)?;
    if key.starts_with(SECRET_PREFIX) && from_browser(request.headers()) {
        return Err(ApiError::secret_key_in_browser());
    }
    if let Some(bearer) = bearer_token(request.headers()) {
        if bearer.starts_with(NEW_FORMAT_PREFIX) {
            if bearer != key {
                return Err(ApiError::bearer_key_mismatch());
            }
            let token = HeaderValue::from_str(&format!("Bearer {}", keys.legacy_key(role)))
                .map_err(ApiError::internal)?;
            request.headers_mut().insert(header::AUTHORIZATION, token);
        }
    }
    Ok((role, request))
}

fn api_key(request: &Request) -> Option<String> {
    request
        .headers()
        .get("apikey")
        .map(|value| value.to_str().unwrap_or_default().to_owned())
}

fn query_key(request: &Request) -> Option<String> {
    form_urlencoded::parse(request.uri().query().unwrap_or_default().as_bytes())
        .find(|(key, _)| key == "apikey")
        .map(|(_, value)| value.into_owned())
}

/// The token of an `Authorization: Bearer` header, read leniently (any scheme case, spaces
/// around the token) so that no spelling lets an `sb_` key past the gateway unrecognised.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Hosted Supabase tells browsers by their `User-Agent`; every browser's starts with `Mozilla/`,
/// while server-side clients (Node's fetch, curl, SDKs) send their own names.
fn from_browser(headers: &HeaderMap) -> bool {
    headers
        .get(header::USER_AGENT)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|agent| agent.trim_start().starts_with("Mozilla/"))
}

/// The role of an API key: a new-format key of this project, or a legacy JWT that verifies and
/// names `anon` or `service_role` in its `role` claim (a token that names no role is no key,
/// whatever PostgREST would run it as). `now` is in Unix seconds.
pub fn key_role(keys: &Keys, key: &str, now: i64) -> Result<Role, ApiError> {
    let key = key.trim();
    if key.starts_with(NEW_FORMAT_PREFIX) {
        return keys
            .new_format_key_role(key)
            .ok_or_else(ApiError::invalid_api_key);
    }
    let claims = keys
        .verify(key, now)
        .map_err(|_| ApiError::invalid_api_key())?;
    match Keys::named_role(&claims) {
        Ok(role @ (Role::Anon | Role::ServiceRole)) => Ok(role),
        _ => Err(ApiError::invalid_api_key()),
    }
}

/// Reads the body up to `limit` bytes: a declared `Content-Length` over the limit is refused
/// before reading, a chunked body as soon as it passes the limit; either way the rest is
/// discarded behind the answer.
async fn limit_body(request: Request, limit: usize) -> Result<Request, BodyRefusal> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.parse::<u64>().ok());
    let (parts, mut body) = request.into_parts();
    if declared.is_some_and(|length| length > limit as u64) {
        // A client waiting for `100 Continue` has sent nothing, and gets none until the body
        // is read.
        if !expects_continue(&parts.headers) {
            linger::discard_later(body);
        }
        return Err(BodyRefusal::TooLarge);
    }
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|error| {
            if pace::is_too_slow(&error) {
                BodyRefusal::TooSlow
            } else {
                BodyRefusal::Other(ApiError::UnreadableBody)
            }
        })?;
        if let Some(data) = frame.data_ref() {
            if bytes.len() + data.len() > limit {
                linger::discard_later(body);
                return Err(BodyRefusal::TooLarge);
            }
            bytes.extend_from_slice(data);
        }
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

fn expects_continue(headers: &HeaderMap) -> bool {
    headers
        .get(header::EXPECT)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim().eq_ignore_ascii_case("100-continue"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::DEFAULT_JWT_SECRET;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| (name.clone(), HeaderValue::from_str(value).unwrap()))
            .collect()
    }

    #[test]
    fn bearer_tokens_are_read_leniently() {
        let read = |value: &str| {
            bearer_token(&headers(&[(header::AUTHORIZATION, value)])).map(str::to_owned)
        };
        assert_eq!(read("Bearer sb_x").as_deref(), Some("sb_x"));
        assert_eq!(read("bearer   sb_x ").as_deref(), Some("sb_x"));
        assert_eq!(read("Basic sb_x"), None);
        assert_eq!(read("Bearer"), None);
    }

    #[test]
    fn browsers_are_told_by_their_user_agent() {
        let browser = |agent: &str| from_browser(&headers(&[(header::USER_AGENT, agent)]));
        assert!(browser(
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36"
        ));
        assert!(browser(
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)"
        ));
        assert!(!browser("node"));
        assert!(!browser("curl/8.5.0"));
        assert!(!browser("supabase-py/2.0 (compatible; Mozilla/5.0)"));
        assert!(!from_browser(&HeaderMap::new()));
    }

    #[test]
    fn keys_of_every_kind_have_their_role() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let role = |key: &str| key_role(&keys, key, 0).ok();
        assert_eq!(role(keys.publishable_key()), Some(Role::Anon));
        assert_eq!(role(keys.secret_key()), Some(Role::ServiceRole));
        assert_eq!(role(keys.anon_key()), Some(Role::Anon));
        assert_eq!(role(keys.service_role_key()), Some(Role::ServiceRole));
        assert_eq!(role("sb_temp_abc"), None);
        assert_eq!(role("sb_secret_abc"), None);
        // Never read as a JWT, even one that would verify.
        assert_eq!(role(&format!("sb_{}", keys.anon_key())), None);
    }
}
