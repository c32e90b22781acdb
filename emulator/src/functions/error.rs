//! The answers `/functions/v1` gives itself, each as the hosted platform words it: a function
//! that does not exist, a missing or bad JWT where `verify_jwt` is on (these carry their code in
//! `sb-error-code` too, as the hosted gateway's do), and a relay error (the only one with
//! `x-relay-error: true`) when the function server cannot be reached, which tells the caller no
//! more than that: why, and where the server is, is for the log. The emulator's own: a path it
//! will not forward.

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// Why `/functions/v1` answered without the function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FunctionsError {
    /// No such function (or not enabled): 404, as hosted.
    NotFound,
    /// `verify_jwt` on and no `Authorization` header: 401.
    NoAuthHeader,
    /// `verify_jwt` on and the bearer is no JWT signed with the project's secret, or expired.
    InvalidJwt,
    /// A path that might not name the function once resolved (`..`, `%2f`, `\`, `//`): 400.
    InvalidPath,
    /// No function server is configured, or it did not answer: 502 with `x-relay-error: true`.
    /// The reason is logged, never sent.
    Relay(String),
}

impl FunctionsError {
    fn parts(&self) -> (StatusCode, &'static str, String) {
        match self {
            FunctionsError::NotFound => (
                StatusCode::NOT_FOUND,
                "NOT_FOUND",
                "Requested function was not found".to_owned(),
            ),
            FunctionsError::NoAuthHeader => (
                StatusCode::UNAUTHORIZED,
                "UNAUTHORIZED_NO_AUTH_HEADER",
                "Missing authorization header".to_owned(),
            ),
            FunctionsError::InvalidJwt => (
                StatusCode::UNAUTHORIZED,
                "UNAUTHORIZED_INVALID_JWT_FORMAT",
                "Invalid JWT".to_owned(),
            ),
            FunctionsError::InvalidPath => (
                StatusCode::BAD_REQUEST,
                "INVALID_PATH",
                "A function's path may not hold empty, `.` or `..` segments, backslashes or \
                 encoded slashes"
                    .to_owned(),
            ),
            FunctionsError::Relay(_) => (
                StatusCode::BAD_GATEWAY,
                "RELAY_ERROR",
                "The function server did not answer".to_owned(),
            ),
        }
    }
}

impl IntoResponse for FunctionsError {
    fn into_response(self) -> Response {
        let (status, code, message) = self.parts();
        let mut response = (
            status,
            Json(serde_json::json!({ "code": code, "message": message })),
        )
            .into_response();
        let (name, value) = match self {
            FunctionsError::Relay(_) => ("x-relay-error", "true"),
            _ => ("sb-error-code", code),
        };
        response
            .headers_mut()
            .insert(name, HeaderValue::from_static(value));
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn answer(error: FunctionsError) -> (u16, Option<String>, serde_json::Value) {
        let response = error.into_response();
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .map(|value| value.to_str().unwrap().to_owned())
        };
        let relay = header("x-relay-error");
        let code = header("sb-error-code");
        let body_code = if relay.is_some() {
            None
        } else {
            Some(code.expect("the platform's answers name their code"))
        };
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        if let Some(code) = body_code {
            assert_eq!(body["code"], code.as_str());
        }
        (status, relay, body)
    }

    #[tokio::test]
    async fn answers_are_worded_as_hosted() {
        let (status, relay, body) = answer(FunctionsError::NotFound).await;
        assert_eq!(status, 404);
        assert_eq!(relay, None);
        assert_eq!(
            body,
            serde_json::json!({"code": "NOT_FOUND", "message": "Requested function was not found"})
        );
        let (status, relay, body) = answer(FunctionsError::NoAuthHeader).await;
        assert_eq!((status, relay), (401, None));
        assert_eq!(body["code"], "UNAUTHORIZED_NO_AUTH_HEADER");
        let (status, relay, body) = answer(FunctionsError::InvalidJwt).await;
        assert_eq!((status, relay), (401, None));
        assert_eq!(body["message"], "Invalid JWT");
        let (status, relay, body) = answer(FunctionsError::Relay(
            "The function server at http://127.0.0.1:9/ did not answer: refused".into(),
        ))
        .await;
        assert_eq!((status, relay.as_deref()), (502, Some("true")));
        assert_eq!(body["message"], "The function server did not answer");
        let (status, relay, body) = answer(FunctionsError::InvalidPath).await;
        assert_eq!((status, relay), (400, None));
        assert_eq!(body["code"], "INVALID_PATH");
    }
}
