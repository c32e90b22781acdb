//! The errors any service may answer with, and internal failures.
//!
//! Supabase's API gateway refuses a request before a service sees it (API key checks, the body
//! size limit) with a `{"message"}` body, which the emulator's own endpoints (`/emulator/v1`)
//! share. Internal failures become a generic 500; their cause travels in a response extension
//! ([`InternalErrorCause`]) so the logging middleware ([`log_internal_errors`]) can report it:
//! `into_response` has no side effects. Each service's own errors, in its own wire format, live
//! beside it (`rest::error`, `auth::error`, `storage::error`, `functions::error`,
//! `realtime::error`) and reuse the internal answer and the cause.

use crate::db::Unfinished;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

#[derive(Debug)]
pub enum ApiError {
    /// An error Supabase's API gateway would answer.
    Gateway {
        status: StatusCode,
        message: &'static str,
        hint: Option<&'static str>,
    },
    /// An error of the emulator's own endpoints (`/emulator/v1`), in the gateway's body shape.
    Emulator { status: StatusCode, message: String },
    /// A request body that broke off before its end, answered (whichever the service) as
    /// PostgREST answers a body it cannot read.
    UnreadableBody,
    /// A bug or an I/O failure in the emulator itself.
    Internal(String),
}

/// The cause of an internal error, which a response carries in its extensions for the logging
/// middleware; every service's internal answer leaves one.
#[derive(Clone, Debug)]
pub struct InternalErrorCause(pub String);

#[derive(Serialize)]
struct GatewayBody<'a> {
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<&'a str>,
}

/// PostgREST's error body, keys in the order Aeson writes them. `/rest/v1` answers in it, and so
/// do an internal error and an unreadable body, whichever the service.
#[derive(Serialize)]
pub struct PostgrestBody<'a> {
    pub code: &'a str,
    pub details: Option<&'a str>,
    pub hint: Option<&'a str>,
    pub message: &'a str,
}

impl<'a> PostgrestBody<'a> {
    /// A body with no details and no hint.
    fn bare(code: &'a str, message: &'a str) -> Self {
        PostgrestBody {
            code,
            details: None,
            hint: None,
            message,
        }
    }
}

/// Database work that never finished is an internal error.
impl From<Unfinished> for ApiError {
    fn from(error: Unfinished) -> Self {
        ApiError::internal(error)
    }
}

impl ApiError {
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        ApiError::Internal(cause.to_string())
    }

    pub fn no_api_key() -> Self {
        ApiError::Gateway {
            status: StatusCode::UNAUTHORIZED,
            message: "No API key found in request",
            hint: Some("No `apikey` request header or url param was found."),
        }
    }

    /// 401 for a key in the URL of the emulator's own endpoints, which read only the header.
    pub fn emulator_key_in_query() -> Self {
        ApiError::Gateway {
            status: StatusCode::UNAUTHORIZED,
            message: "No API key found in request",
            hint: Some("The emulator's own endpoints take the key in the `apikey` header only, never in the URL."),
        }
    }

    pub fn invalid_api_key() -> Self {
        ApiError::Gateway {
            status: StatusCode::UNAUTHORIZED,
            message: "Invalid API key",
            hint: Some("Double check your Supabase `anon` or `service_role` API key."),
        }
    }

    /// A secret key sent from a browser (its `User-Agent`): hosted Supabase refuses it whatever
    /// the request, because a key in a page is public.
    pub fn secret_key_in_browser() -> Self {
        ApiError::Gateway {
            status: StatusCode::UNAUTHORIZED,
            message: "Forbidden use of secret API key in browser",
            hint: Some("Secret keys belong on servers; use the publishable key in a browser."),
        }
    }

    /// An `sb_` key as the bearer token must be the request's API key itself.
    pub fn bearer_key_mismatch() -> Self {
        ApiError::Gateway {
            status: StatusCode::UNAUTHORIZED,
            message: "Invalid API key in Authorization header",
            hint: Some(
                "An `sb_` key may be sent as `Authorization: Bearer` only when it equals the `apikey` header.",
            ),
        }
    }

    /// The emulator's own endpoints (`/emulator/v1`) are for test harnesses holding the
    /// service_role key.
    pub fn service_role_key_required() -> Self {
        ApiError::Gateway {
            status: StatusCode::UNAUTHORIZED,
            message: "This endpoint requires the service_role key",
            hint: Some(
                "Send the secret key or the service_role key printed at start-up as the `apikey` header.",
            ),
        }
    }

    /// 408 for a request body that fell behind the pace every body must keep
    /// ([`crate::http::pace`]).
    pub fn body_too_slow() -> Self {
        ApiError::Gateway {
            status: StatusCode::REQUEST_TIMEOUT,
            message: "The request body arrived too slowly",
            hint: Some("A request body must keep up a minimum rate once its grace period is over."),
        }
    }

    /// 413 from the gateway's request size limit (Kong's `request-size-limiting` answer).
    pub fn payload_too_large() -> Self {
        ApiError::Gateway {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: "Request size limit exceeded",
            hint: None,
        }
    }
}

const JSON_UTF8: &str = "application/json; charset=utf-8";

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::Gateway {
                status,
                message,
                hint,
            } => json_response(status, &GatewayBody { message, hint }),
            ApiError::Emulator { status, message } => json_response(
                status,
                &GatewayBody {
                    message: &message,
                    hint: None,
                },
            ),
            ApiError::UnreadableBody => {
                let body = PostgrestBody::bare("PGRST102", "Could not read the request body");
                let mut response = json_response(StatusCode::BAD_REQUEST, &body);
                response.headers_mut().insert(
                    "proxy-status",
                    HeaderValue::from_static("PostgREST; error=PGRST102"),
                );
                response
            }
            ApiError::Internal(cause) => {
                let body = PostgrestBody::bare("XX000", "internal emulator error");
                let mut response = json_response(StatusCode::INTERNAL_SERVER_ERROR, &body);
                response.extensions_mut().insert(InternalErrorCause(cause));
                response
            }
        }
    }
}

/// An error body as JSON text, typed `application/json; charset=utf-8` as the gateway and
/// PostgREST type theirs.
pub fn json_response(status: StatusCode, body: &impl Serialize) -> Response {
    let text =
        serde_json::to_string(body).expect("error bodies are structs of strings, which serialise");
    (status, [(header::CONTENT_TYPE, JSON_UTF8)], text).into_response()
}

/// Middleware: reports the cause of every internal error on stderr.
pub async fn log_internal_errors(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let uri = request.uri().clone();
    let response = next.run(request).await;
    if let Some(InternalErrorCause(cause)) = response.extensions().get::<InternalErrorCause>() {
        eprintln!("{}", internal_error_line(&method, &uri, cause));
    }
    response
}

/// The log line for an internal error, with credentials in the query string (`?apikey=`,
/// tokens, secrets, passwords) replaced by `[redacted]`: logs are read by more eyes than keys.
pub fn internal_error_line(
    method: &axum::http::Method,
    uri: &axum::http::Uri,
    cause: &str,
) -> String {
    let target = match uri.query() {
        Some(query) => format!("{}?{}", uri.path(), redacted_query(query)),
        None => uri.path().to_owned(),
    };
    format!("geocache-emulator: internal error on {method} {target}: {cause}")
}

/// Parameter names that carry credentials, by the words in them.
const SECRET_WORDS: [&str; 6] = ["key", "token", "secret", "password", "jwt", "auth"];

fn redacted_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| {
            let name = pair.split_once('=').map_or(pair, |(name, _)| name);
            let decoded: String = form_urlencoded::parse(name.as_bytes())
                .map(|(name, _)| name.to_ascii_lowercase())
                .collect();
            if pair.contains('=') && SECRET_WORDS.iter().any(|word| decoded.contains(word)) {
                format!("{name}=[redacted]")
            } else {
                pair.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_internal_error_log_never_prints_a_key_from_the_query() {
        let uri: axum::http::Uri =
            "/rest/v1/geocache_logs?select=id&apikey=sb_secret_abc&%61pikey=eyJx&access_token=t&order=id.asc"
                .parse()
                .unwrap();
        let line = internal_error_line(&axum::http::Method::GET, &uri, "sqlite: broken");
        assert_eq!(
            line,
            "geocache-emulator: internal error on GET /rest/v1/geocache_logs?select=id&apikey=[redacted]&%61pikey=[redacted]&access_token=[redacted]&order=id.asc: sqlite: broken"
        );
        let plain: axum::http::Uri = "/auth/v1/user".parse().unwrap();
        assert_eq!(
            internal_error_line(&axum::http::Method::PUT, &plain, "x"),
            "geocache-emulator: internal error on PUT /auth/v1/user: x"
        );
    }
}
