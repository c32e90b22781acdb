//! Storage's one error type, with storage-js's class names and the fields it derives: a refused
//! call is a `StorageApiError` (`status`, `statusCode`, `code`), a call that got no answer (or an
//! unreadable one) a `StorageUnknownError`.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StorageError {
    /// The server answered with a non-2xx status.
    #[error("{message}")]
    Api {
        message: String,
        /// The HTTP status.
        status: u16,
        /// The body's `statusCode`, else its `code`, else the HTTP status, as text.
        status_code: String,
        /// The body's `code`, when it has one.
        code: Option<String>,
    },
    /// No answer (the fetch failed), or a 2xx answer that is not the JSON the call expects.
    #[error("{message}")]
    Unknown { message: String },
    /// The answer lacked what the client needs (storage-js's plain `StorageError`).
    #[error("{message}")]
    Invalid { message: String },
}

impl StorageError {
    /// The JS error's `name`.
    pub fn name(&self) -> &'static str {
        match self {
            StorageError::Api { .. } => "StorageApiError",
            StorageError::Unknown { .. } => "StorageUnknownError",
            StorageError::Invalid { .. } => "StorageError",
        }
    }

    pub fn status(&self) -> Option<u16> {
        match self {
            StorageError::Api { status, .. } => Some(*status),
            _ => None,
        }
    }

    pub fn status_code(&self) -> Option<&str> {
        match self {
            StorageError::Api { status_code, .. } => Some(status_code),
            _ => None,
        }
    }

    pub fn code(&self) -> Option<&str> {
        match self {
            StorageError::Api { code, .. } => code.as_deref(),
            _ => None,
        }
    }

    /// A refusal, read as storage-js's `handleError` reads it. A body that is not JSON (or is
    /// `null`) leaves the status text, else `HTTP <status> error`, as the message.
    pub fn refused(status: u16, status_text: &str, body: &str) -> StorageError {
        let from_status = || StorageError::Api {
            message: if status_text.is_empty() {
                format!("HTTP {status} error")
            } else {
                status_text.to_owned()
            },
            status,
            status_code: status.to_string(),
            code: None,
        };
        let body: Value = match serde_json::from_str(body) {
            Ok(Value::Null) | Err(_) => return from_status(),
            Ok(body) => body,
        };
        let field = |name: &str| body.get(name).and_then(truthy_text);
        let nested_message = match body.get("error") {
            Some(Value::String(error)) => truthy_text(&Value::String(error.clone())),
            Some(error) => error.get("message").and_then(truthy_text),
            None => None,
        };
        let message = field("msg")
            .or_else(|| field("message"))
            .or_else(|| field("error_description"))
            .or(nested_message)
            .unwrap_or_else(|| body.to_string());
        StorageError::Api {
            message,
            status,
            status_code: field("statusCode")
                .or_else(|| field("code"))
                .unwrap_or_else(|| status.to_string()),
            code: match body.get("code") {
                Some(Value::String(code)) => Some(code.clone()),
                Some(Value::Number(code)) => Some(code.to_string()),
                _ => None,
            },
        }
    }

    /// A fetch that failed (storage-js keeps the thrown error's message).
    pub fn network(message: impl Into<String>) -> StorageError {
        StorageError::Unknown {
            message: message.into(),
        }
    }
}

/// A JS-truthy value as `String(value)` writes it; `None` for `""`, `0`, `false`, `null`.
fn truthy_text(value: &Value) -> Option<String> {
    match value {
        Value::Null | Value::Bool(false) => None,
        Value::String(text) if text.is_empty() => None,
        Value::String(text) => Some(text.clone()),
        Value::Number(number) if number.as_f64() == Some(0.0) => None,
        Value::Bool(true) => Some("true".to_owned()),
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(message: &str, status: u16, status_code: &str, code: Option<&str>) -> StorageError {
        StorageError::Api {
            message: message.into(),
            status,
            status_code: status_code.into(),
            code: code.map(Into::into),
        }
    }

    #[test]
    fn the_storage_server_body_gives_message_and_status_code() {
        let body = r#"{"statusCode":"404","error":"not_found","message":"Object not found"}"#;
        let error = StorageError::refused(400, "Bad Request", body);
        assert_eq!(error, api("Object not found", 400, "404", None));
        assert_eq!(error.name(), "StorageApiError");
        assert_eq!(error.to_string(), "Object not found");
    }

    #[test]
    fn code_is_kept_and_stands_in_for_a_missing_status_code() {
        let body = r#"{"code":"InvalidKey","message":"bad key"}"#;
        assert_eq!(
            StorageError::refused(400, "", body),
            api("bad key", 400, "InvalidKey", Some("InvalidKey"))
        );
        let error = StorageError::refused(
            403,
            "",
            r#"{"statusCode":"403","code":"AccessDenied","message":"no"}"#,
        );
        assert_eq!(error.code(), Some("AccessDenied"));
        assert_eq!(error.status_code(), Some("403"));
        assert_eq!(error.status(), Some(403));
    }

    #[test]
    fn the_message_is_looked_for_in_storage_js_order() {
        let cases = [
            (r#"{"msg":"a","message":"b"}"#, "a"),
            (r#"{"message":"","error_description":"c"}"#, "c"),
            (r#"{"error":"d"}"#, "d"),
            (r#"{"error":{"message":"e"}}"#, "e"),
            (r#"{"error":""}"#, r#"{"error":""}"#),
            (r#"{"other":1}"#, r#"{"other":1}"#),
            (r#"{"message":5}"#, "5"),
        ];
        for (body, message) in cases {
            assert_eq!(
                StorageError::refused(500, "x", body).to_string(),
                message,
                "{body}"
            );
        }
    }

    #[test]
    fn a_body_that_is_not_json_leaves_the_status_text() {
        assert_eq!(
            StorageError::refused(502, "Bad Gateway", "<html>"),
            api("Bad Gateway", 502, "502", None)
        );
        assert_eq!(
            StorageError::refused(500, "", "null"),
            api("HTTP 500 error", 500, "500", None)
        );
    }

    #[test]
    fn falsy_status_codes_fall_through_to_the_status() {
        let error = StorageError::refused(409, "", r#"{"statusCode":"","message":"dup"}"#);
        assert_eq!(error.status_code(), Some("409"));
        let error = StorageError::refused(409, "", r#"{"statusCode":0,"message":"dup"}"#);
        assert_eq!(error.status_code(), Some("409"));
    }

    #[test]
    fn network_and_invalid_errors_have_no_status() {
        let error = StorageError::network("Failed to fetch");
        assert_eq!(error.name(), "StorageUnknownError");
        assert_eq!(error.status(), None);
        assert_eq!(error.code(), None);
        let error = StorageError::Invalid {
            message: "No token returned by API".into(),
        };
        assert_eq!(error.name(), "StorageError");
        assert_eq!(error.status_code(), None);
    }
}
