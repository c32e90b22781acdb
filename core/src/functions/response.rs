//! What an invoke's response is, from its status and two headers, in supabase-js's order: a
//! relay error first (`x-relay-error: true`, whatever the status), then any status outside
//! 200-299, else data read as its `Content-Type` says.

use crate::functions::error::FunctionsFailure;

/// How a successful response's body becomes `data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataKind {
    /// `application/json`: `response.json()`.
    Json,
    /// `application/octet-stream` or `application/pdf`: `response.blob()`.
    Blob,
    /// `text/event-stream`: the `Response` itself, for the caller to read as it streams.
    Stream,
    /// `multipart/form-data`: `response.formData()`.
    FormData,
    /// Anything else, or no `Content-Type`: `response.text()`.
    Text,
}

impl DataKind {
    /// Reads the media type (before any `;` parameters, trimmed). supabase-js compares it as
    /// given, so `Application/JSON` is text there; this does the same.
    pub fn of(content_type: Option<&str>) -> DataKind {
        let media_type = content_type
            .unwrap_or("text/plain")
            .split(';')
            .next()
            .unwrap_or_default()
            .trim();
        match media_type {
            "application/json" => DataKind::Json,
            "application/octet-stream" | "application/pdf" => DataKind::Blob,
            "text/event-stream" => DataKind::Stream,
            "multipart/form-data" => DataKind::FormData,
            _ => DataKind::Text,
        }
    }
}

/// The response's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Data(DataKind),
    Failed(FunctionsFailure),
}

/// Classifies a response from its status, its `x-relay-error` header and its `Content-Type`.
pub fn classify(status: u16, relay_error: Option<&str>, content_type: Option<&str>) -> Outcome {
    if relay_error == Some("true") {
        Outcome::Failed(FunctionsFailure::Relay)
    } else if !(200..300).contains(&status) {
        Outcome::Failed(FunctionsFailure::Http)
    } else {
        Outcome::Data(DataKind::of(content_type))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relay_error_is_checked_before_the_status() {
        for status in [200, 404, 500, 503] {
            assert_eq!(
                classify(status, Some("true"), Some("application/json")),
                Outcome::Failed(FunctionsFailure::Relay),
                "{status}"
            );
        }
        // Only the exact value counts, as in supabase-js.
        assert_eq!(
            classify(200, Some("false"), None),
            Outcome::Data(DataKind::Text)
        );
        assert_eq!(
            classify(500, Some("TRUE"), None),
            Outcome::Failed(FunctionsFailure::Http)
        );
    }

    #[test]
    fn statuses_outside_2xx_are_http_errors() {
        for status in [199, 300, 304, 401, 404, 500, 546] {
            assert_eq!(
                classify(status, None, Some("application/json")),
                Outcome::Failed(FunctionsFailure::Http),
                "{status}"
            );
        }
        for status in [200, 201, 204, 299] {
            assert!(matches!(classify(status, None, None), Outcome::Data(_)));
        }
    }

    #[test]
    fn data_is_read_as_its_media_type_says() {
        let cases = [
            (Some("application/json"), DataKind::Json),
            (Some("application/json; charset=utf-8"), DataKind::Json),
            (Some(" application/json ;x"), DataKind::Json),
            (Some("application/octet-stream"), DataKind::Blob),
            (Some("application/pdf"), DataKind::Blob),
            (Some("text/event-stream"), DataKind::Stream),
            (Some("multipart/form-data; boundary=x"), DataKind::FormData),
            (Some("text/plain;charset=UTF-8"), DataKind::Text),
            (Some("text/html"), DataKind::Text),
            (Some("Application/JSON"), DataKind::Text),
            (Some("application/problem+json"), DataKind::Text),
            (Some(""), DataKind::Text),
            (None, DataKind::Text),
        ];
        for (content_type, kind) in cases {
            assert_eq!(DataKind::of(content_type), kind, "{content_type:?}");
        }
    }
}
