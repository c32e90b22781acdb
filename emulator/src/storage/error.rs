//! The storage server's errors and their HTTP form.
//!
//! Supabase Storage renders every error as `{"statusCode","code","error","message"}`, the status
//! in the body as a string. The HTTP status itself is 400 for every error but an internal one
//! (500): a missing object is HTTP 400 with `"statusCode":"404"` in its body. storage-js reads the
//! body's `statusCode`, so clients see the same values either way.

use crate::db::Unfinished;
use crate::error::InternalErrorCause;
use crate::random;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// The one error type of the storage layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageError {
    /// The status Storage writes in the body (`"404"` for a missing object).
    pub status: u16,
    /// Storage's error code (`NoSuchKey`, `InvalidKey`, ...).
    pub code: &'static str,
    /// The older error name storage-js also reads (`not_found`, `Duplicate`, ...).
    pub error: &'static str,
    pub message: String,
    /// Why an internal error happened, for the log; never sent.
    cause: Option<String>,
    /// The request body may be partly unread: the connection must not be reused.
    close: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    status_code: String,
    code: &'a str,
    error: &'a str,
    message: &'a str,
}

impl StorageError {
    fn new(status: u16, code: &'static str, error: &'static str, message: String) -> Self {
        StorageError {
            status,
            code,
            error,
            message,
            cause: None,
            close: false,
        }
    }

    pub fn internal(cause: impl std::fmt::Display) -> Self {
        StorageError {
            cause: Some(cause.to_string()),
            ..StorageError::new(
                500,
                "InternalError",
                "internal",
                "Internal server error".to_owned(),
            )
        }
    }

    /// Asks the client to close the connection after the answer (a body left unread).
    pub fn closing(self) -> Self {
        StorageError {
            close: true,
            ..self
        }
    }

    pub fn no_such_bucket() -> Self {
        StorageError::new(
            404,
            "NoSuchBucket",
            "Bucket not found",
            "Bucket not found".to_owned(),
        )
    }

    pub fn no_such_key() -> Self {
        StorageError::new(404, "NoSuchKey", "not_found", "Object not found".to_owned())
    }

    pub fn invalid_key(key: &str) -> Self {
        StorageError::new(
            400,
            "InvalidKey",
            "InvalidKey",
            format!("Invalid key: {key}"),
        )
    }

    pub fn invalid_bucket_name() -> Self {
        StorageError::new(
            400,
            "InvalidBucketName",
            "Invalid Input",
            "Bucket name invalid".to_owned(),
        )
    }

    pub fn key_already_exists() -> Self {
        StorageError::new(
            409,
            "KeyAlreadyExists",
            "Duplicate",
            "The resource already exists".to_owned(),
        )
    }

    pub fn bucket_already_exists() -> Self {
        StorageError::new(
            409,
            "BucketAlreadyExists",
            "Duplicate",
            "The resource already exists".to_owned(),
        )
    }

    pub fn bucket_not_empty() -> Self {
        StorageError::new(
            409,
            "ResourceNotEmpty",
            "ResourceNotEmpty",
            "The bucket you tried to delete is not empty".to_owned(),
        )
    }

    pub fn entity_too_large() -> Self {
        StorageError::new(
            413,
            "EntityTooLarge",
            "Payload too large",
            "The object exceeded the maximum allowed size".to_owned(),
        )
    }

    pub fn invalid_mime_type(mime_type: &str) -> Self {
        StorageError::new(
            415,
            "InvalidMimeType",
            "invalid_mime_type",
            format!("mime type {mime_type} is not supported"),
        )
    }

    /// A row-level security refusal, as PostgreSQL words it.
    pub fn row_level_security() -> Self {
        StorageError::new(
            403,
            "AccessDenied",
            "Unauthorized",
            "new row violates row-level security policy".to_owned(),
        )
    }

    pub fn invalid_request(message: impl Into<String>) -> Self {
        StorageError::new(400, "InvalidRequest", "InvalidRequest", message.into())
    }

    /// The request body broke off or could not be read; the connection is closed after.
    pub fn unreadable_body() -> Self {
        StorageError::invalid_request("Could not read the request body").closing()
    }

    pub fn invalid_parameter(name: &str) -> Self {
        StorageError::new(
            400,
            "InvalidParameter",
            "InvalidParameter",
            format!("Invalid Parameter {name}"),
        )
    }

    pub fn missing_token() -> Self {
        StorageError::new(
            400,
            "InvalidSignature",
            "InvalidSignature",
            "Missing token".to_owned(),
        )
    }

    /// A signed URL's token that does not verify, with the JWT library's words for why.
    pub fn invalid_jwt(message: &str) -> Self {
        StorageError::new(400, "InvalidJWT", "InvalidJWT", message.to_owned())
    }

    /// A bearer token that does not verify, with the JWT library's words for why.
    pub fn access_denied(message: &str) -> Self {
        StorageError::new(403, "AccessDenied", "Unauthorized", message.to_owned())
    }

    /// A valid token for another object.
    pub fn invalid_signature() -> Self {
        StorageError::new(
            400,
            "InvalidSignature",
            "InvalidSignature",
            "Invalid signature".to_owned(),
        )
    }

    /// A signed upload URL that has served its upload already.
    pub fn upload_url_spent() -> Self {
        StorageError::new(
            400,
            "InvalidJWT",
            "InvalidJWT",
            "The upload URL has been used already".to_owned(),
        )
    }

    /// Image transformations, which the emulator does not have.
    pub fn transformations_not_supported() -> Self {
        StorageError::new(
            409,
            "NotSupported",
            "NotSupported",
            "The feature image transformation is not enabled for this resource".to_owned(),
        )
    }

    pub fn no_route() -> Self {
        StorageError::new(404, "NotFound", "Not Found", "Route not found".to_owned())
    }
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{} {}: {}", self.status, self.code, self.message)
    }
}

impl std::error::Error for StorageError {}

/// Database work that never finished is an internal error here.
impl From<Unfinished> for StorageError {
    fn from(error: Unfinished) -> Self {
        StorageError::internal(error)
    }
}

impl From<random::Unavailable> for StorageError {
    fn from(error: random::Unavailable) -> Self {
        StorageError::internal(error)
    }
}

impl From<rusqlite::Error> for StorageError {
    fn from(error: rusqlite::Error) -> Self {
        StorageError::internal(format!("sqlite: {error}"))
    }
}

impl From<std::io::Error> for StorageError {
    fn from(error: std::io::Error) -> Self {
        StorageError::internal(format!("storage files: {error}"))
    }
}

impl IntoResponse for StorageError {
    fn into_response(self) -> Response {
        let http_status = if self.status == 500 {
            StatusCode::INTERNAL_SERVER_ERROR
        } else {
            StatusCode::BAD_REQUEST
        };
        let body = Body {
            status_code: self.status.to_string(),
            code: self.code,
            error: self.error,
            message: &self.message,
        };
        let text = serde_json::to_string(&body).expect("a struct of strings serialises");
        let mut response = (
            http_status,
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            text,
        )
            .into_response();
        if self.close {
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        if let Some(cause) = self.cause {
            response.extensions_mut().insert(InternalErrorCause(cause));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn errors_carry_their_status_in_the_body_and_400_on_the_wire() {
        let response = StorageError::no_such_key().into_response();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(
            std::str::from_utf8(&bytes).unwrap(),
            r#"{"statusCode":"404","code":"NoSuchKey","error":"not_found","message":"Object not found"}"#
        );
        let internal = StorageError::internal("disk on fire").into_response();
        assert_eq!(internal.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(internal.extensions().get::<InternalErrorCause>().is_some());
    }
}
