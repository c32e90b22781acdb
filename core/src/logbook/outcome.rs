//! Response classification, done once: every call's (status, body) or network failure becomes
//! either a successful body or one [`LogbookError`].

use std::fmt;

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};

use crate::client::http::{HttpResponse, NoResponse};
use crate::logbook::json_shape::{other_shapes, read_fields, Shape, ShapeVisitor};
use crate::logbook::schema::SchemaError;

/// Why a logbook call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogbookError {
    #[error("network failure: {message}")]
    Network { message: String },
    /// The request was aborted when its deadline (`requestTimeoutMs`) passed.
    #[error("request timed out after {after_ms} ms")]
    Timeout { after_ms: u32 },
    /// A 5xx without a PostgREST error body (a gateway's HTML page, say).
    #[error("server error: http status {status}")]
    Server { status: u16, body: String },
    /// The server refused with a JSON error; PostgREST's `{code, message, details, hint}` is kept.
    /// `code` is absent when the body had none (a gateway's `{"message": …}` or plain text).
    #[error("{message}")]
    Api {
        status: u16,
        code: Option<String>,
        message: String,
        details: Option<String>,
        hint: Option<String>,
    },
    /// A successful read whose `Content-Range` is not PostgREST's `<first>-<last>/<total>` (or
    /// `*/<total>` for no rows) for the rows its body holds.
    #[error("malformed Content-Range {value:?} for a body of {rows} rows")]
    ContentRange {
        status: u16,
        value: String,
        rows: usize,
    },
    /// A successful response whose body is not what the call returns.
    #[error("{error}")]
    Body {
        status: u16,
        #[source]
        error: SchemaError,
    },
}

impl LogbookError {
    /// PostgREST's code for API errors (e.g. `42501`, `PGRST205`); otherwise a client-side code.
    pub fn code(&self) -> &str {
        match self {
            LogbookError::Network { .. } => "network_error",
            LogbookError::Timeout { .. } => "timeout",
            LogbookError::Server { .. } => "server_error",
            LogbookError::Api {
                code: Some(code), ..
            } => code,
            LogbookError::Api { code: None, .. } => "http_error",
            LogbookError::ContentRange { .. } => "invalid_content_range",
            LogbookError::Body { error, .. } => error.code(),
        }
    }

    /// The HTTP status; 0 when no response arrived.
    pub fn status(&self) -> u16 {
        match self {
            LogbookError::Network { .. } | LogbookError::Timeout { .. } => 0,
            LogbookError::Server { status, .. }
            | LogbookError::Api { status, .. }
            | LogbookError::ContentRange { status, .. }
            | LogbookError::Body { status, .. } => *status,
        }
    }

    /// Whether the same request may succeed if sent again: network failures, timeouts and 5xx
    /// (52x included).
    pub fn retryable(&self) -> bool {
        match self {
            LogbookError::Network { .. }
            | LogbookError::Timeout { .. }
            | LogbookError::Server { .. } => true,
            LogbookError::Api { status, .. } => is_server_status(*status),
            LogbookError::ContentRange { .. } | LogbookError::Body { .. } => false,
        }
    }

    pub fn details(&self) -> Option<&str> {
        match self {
            LogbookError::Api { details, .. } => details.as_deref(),
            _ => None,
        }
    }

    pub fn hint(&self) -> Option<&str> {
        match self {
            LogbookError::Api { hint, .. } => hint.as_deref(),
            _ => None,
        }
    }

    /// The schema mismatch, when that is what went wrong.
    pub fn schema(&self) -> Option<&SchemaError> {
        match self {
            LogbookError::Body { error, .. } => Some(error),
            _ => None,
        }
    }
}

fn is_server_status(status: u16) -> bool {
    (500..=599).contains(&status)
}

/// Passes a 2xx response through and classifies everything else.
///
/// ```
/// use geocache_core::logbook::outcome::expect_success;
/// use geocache_core::{HttpResponse, LogbookError};
///
/// let ok = expect_success(Ok(HttpResponse::new(200, "[]")));
/// assert_eq!(ok.map(|response| response.body), Ok("[]".to_owned()));
///
/// let refused = expect_success(Ok(HttpResponse::new(
///     401,
///     r#"{"code": "PGRST301", "message": "JWT expired"}"#,
/// )));
/// assert!(matches!(refused, Err(LogbookError::Api { status: 401, .. })));
/// ```
pub fn expect_success(
    response: Result<HttpResponse, NoResponse>,
) -> Result<HttpResponse, LogbookError> {
    let response = response.map_err(|failure| match failure {
        NoResponse::Network(failure) => LogbookError::Network {
            message: failure.message,
        },
        NoResponse::TimedOut(timeout) => LogbookError::Timeout {
            after_ms: timeout.ms(),
        },
    })?;
    if (200..=299).contains(&response.status) {
        return Ok(response);
    }
    let status = response.status;
    let [code, message, details, hint] = error_body_strings(&response.body);
    match (code, message) {
        (code @ Some(_), Some(message)) => Err(LogbookError::Api {
            status,
            code,
            message,
            details,
            hint,
        }),
        _ if is_server_status(status) => Err(LogbookError::Server {
            status,
            body: response.body,
        }),
        (_, Some(message)) => Err(LogbookError::Api {
            status,
            code: None,
            message,
            details,
            hint,
        }),
        // As postgrest-js does for a body it cannot parse: the text becomes the message.
        _ => Err(LogbookError::Api {
            status,
            code: None,
            message: if response.body.is_empty() {
                format!("http status {status}")
            } else {
                response.body
            },
            details: None,
            hint: None,
        }),
    }
}

/// `code`, `message`, `details` and `hint` of a JSON object body, each only where it is a string;
/// all `None` when the body is not a JSON object.
fn error_body_strings(body: &str) -> [Option<String>; 4] {
    struct ErrorBody;

    impl<'de> Visitor<'de> for ErrorBody {
        type Value = Option<[Option<Shape<'de>>; 4]>;

        fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
            formatter.write_str("an error object")
        }

        fn visit_map<A: MapAccess<'de>>(self, fields: A) -> Result<Self::Value, A::Error> {
            read_fields(fields, ["code", "message", "details", "hint"]).map(Some)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, items: A) -> Result<Self::Value, A::Error> {
            ShapeVisitor.visit_seq(items).map(|_| None)
        }

        other_shapes!(|_, _| None);
    }

    let mut deserializer = serde_json::Deserializer::from_str(body);
    let fields = deserializer
        .deserialize_any(ErrorBody)
        .and_then(|fields| deserializer.end().map(|()| fields))
        .ok()
        .flatten()
        .unwrap_or_default();
    fields.map(|field| match field {
        Some(Shape::String(text)) => Some(text.into_owned()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::http::NetworkFailure;
    use crate::client::request_timeout::RequestTimeout;

    fn respond(status: u16, body: &str) -> Result<HttpResponse, LogbookError> {
        expect_success(Ok(HttpResponse::new(status, body)))
    }

    #[test]
    fn two_hundreds_pass_through() {
        for status in [200, 201, 204, 299] {
            assert_eq!(respond(status, "[]"), Ok(HttpResponse::new(status, "[]")));
        }
    }

    #[test]
    fn network_failures_are_retryable_with_status_zero() {
        let error = expect_success(Err(NetworkFailure {
            message: "TypeError: Failed to fetch".into(),
        }
        .into()))
        .unwrap_err();
        assert_eq!(error.code(), "network_error");
        assert_eq!(error.status(), 0);
        assert!(error.retryable());
        assert_eq!(
            error.to_string(),
            "network failure: TypeError: Failed to fetch"
        );
    }

    #[test]
    fn timeouts_are_retryable_with_status_zero_and_say_after_how_long() {
        let timeout = RequestTimeout::from_ms(1500.0).unwrap();
        let error = expect_success(Err(NoResponse::TimedOut(timeout))).unwrap_err();
        assert_eq!(error, LogbookError::Timeout { after_ms: 1500 });
        assert_eq!((error.code(), error.status()), ("timeout", 0));
        assert!(error.retryable());
        assert_eq!(error.to_string(), "request timed out after 1500 ms");
        assert_eq!(
            (error.details(), error.hint(), error.schema()),
            (None, None, None)
        );
    }

    #[test]
    fn postgrest_errors_keep_code_message_details_and_hint() {
        let body = r#"{"code":"42501","details":null,"hint":null,"message":"new row violates row-level security policy for table \"geocache_logs\""}"#;
        let error = respond(401, body).unwrap_err();
        assert_eq!(error.code(), "42501");
        assert_eq!(error.status(), 401);
        assert!(!error.retryable());
        assert_eq!(
            error.to_string(),
            "new row violates row-level security policy for table \"geocache_logs\""
        );
        assert_eq!((error.details(), error.hint()), (None, None));

        let body = r#"{"code":"PGRST205","details":null,"hint":"Perhaps you meant the table 'public.geocache_logs'","message":"Could not find the table 'public.nope' in the schema cache"}"#;
        let error = respond(404, body).unwrap_err();
        assert_eq!(error.code(), "PGRST205");
        assert_eq!(
            error.hint(),
            Some("Perhaps you meant the table 'public.geocache_logs'")
        );

        let body = r#"{"code":"23505","details":"Key (id)=(1) already exists.","hint":null,"message":"duplicate key"}"#;
        assert_eq!(
            respond(409, body).unwrap_err().details(),
            Some("Key (id)=(1) already exists.")
        );
    }

    #[test]
    fn postgrest_errors_with_a_server_status_are_retryable_api_errors() {
        let body = r#"{"code":"08006","details":null,"hint":null,"message":"connection failure"}"#;
        let error = respond(503, body).unwrap_err();
        assert_eq!(error.code(), "08006");
        assert!(error.retryable());
    }

    #[test]
    fn server_statuses_without_a_postgrest_body_are_server_errors() {
        for (status, body) in [
            (500, ""),
            (502, "<html>Bad Gateway</html>"),
            (520, "{\"message\":\"cloudflare\"}"),
            (530, "[]"),
            (599, "{\"code\":5}"),
        ] {
            let error = respond(status, body).unwrap_err();
            assert_eq!(error.code(), "server_error", "{status}");
            assert_eq!(error.status(), status);
            assert!(error.retryable());
            assert_eq!(
                error.to_string(),
                format!("server error: http status {status}")
            );
        }
    }

    #[test]
    fn other_refusals_without_a_code_are_http_errors() {
        let error = respond(
            401,
            r#"{"message":"Invalid API key","hint":"Double check your key"}"#,
        )
        .unwrap_err();
        assert_eq!(error.code(), "http_error");
        assert_eq!(error.to_string(), "Invalid API key");
        assert_eq!(error.hint(), Some("Double check your key"));
        assert!(!error.retryable());

        let error = respond(404, "no such thing").unwrap_err();
        assert_eq!(
            (error.code(), error.to_string()),
            ("http_error", "no such thing".into())
        );
        let error = respond(400, "").unwrap_err();
        assert_eq!(error.to_string(), "http status 400");
        let error = respond(302, "").unwrap_err();
        assert_eq!((error.code(), error.status()), ("http_error", 302));
    }

    #[test]
    fn error_fields_count_only_as_strings_of_a_json_object() {
        let body =
            r#"{"code":"x","code":"42501","message":"m","message":7,"details":["d"],"hint":"h"}"#;
        let error = respond(400, body).unwrap_err();
        // The last `code` wins; a non-string message is no message, so the body is the message.
        assert_eq!(error.code(), "http_error");
        assert_eq!(error.to_string(), body);
        let error = respond(
            400,
            r#"{"code":"1","message":"m","details":null,"hint":"h"} x"#,
        )
        .unwrap_err();
        assert_eq!(
            (error.code(), error.details(), error.hint()),
            ("http_error", None, None)
        );
        for body in [
            "[\"code\",\"message\"]",
            "\"message\"",
            "1.5",
            "null",
            "{\"message\":\"m\"",
        ] {
            let error = respond(418, body).unwrap_err();
            assert_eq!(
                (error.code(), error.to_string()),
                ("http_error", body.to_owned()),
                "{body}"
            );
        }
        let error = respond(
            400,
            r#"{"message":"m","code":"c","hint":"h","details":"d","x":{}}"#,
        )
        .unwrap_err();
        assert_eq!(
            (error.code(), error.details(), error.hint()),
            ("c", Some("d"), Some("h"))
        );
    }

    #[test]
    fn body_errors_carry_the_schema_error() {
        let schema = SchemaError::NotAnArray {
            found: "object".into(),
        };
        let error = LogbookError::Body {
            status: 200,
            error: schema.clone(),
        };
        assert_eq!(error.code(), "schema_mismatch");
        assert_eq!(error.to_string(), schema.to_string());
        assert_eq!(error.schema(), Some(&schema));
        assert!(!error.retryable());
        assert_eq!(error.status(), 200);
        let invalid = LogbookError::Body {
            status: 200,
            error: SchemaError::InvalidJson { reason: "x".into() },
        };
        assert_eq!(invalid.code(), "invalid_json");
    }
}
