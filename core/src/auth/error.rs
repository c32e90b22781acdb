//! Auth failures, classified once per response as auth-js 2.109 does it (`handleError` and
//! `_handleRequest` in src/lib/fetch.ts; the classes of src/lib/errors.ts).

use serde_json::{Map, Value};

use crate::client::http::{HttpResponse, NoResponse};
use crate::logbook::timestamp::is_calendar_date;

/// `X-Supabase-Api-Version`, sent on every auth request and echoed by the server.
pub const API_VERSION_HEADER: &str = "x-supabase-api-version";
/// The API version auth-js sends; responses at or after it carry `{code, message}` bodies.
pub const API_VERSION: &str = "2024-01-01";

/// Why an auth call failed. Each variant is one auth-js error class ([`AuthError::name`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// The server refused with an error body (`AuthApiError`).
    #[error("{message}")]
    Api {
        message: String,
        status: u16,
        code: Option<String>,
    },
    /// `fetch` failed (status 0), a 2xx body was not JSON (status 0), or the server or a gateway
    /// answered 500-504 or 520-530 (`AuthRetryableFetchError`): sending again may succeed.
    #[error("{message}")]
    RetryableFetch { message: String, status: u16 },
    /// The request was aborted when its deadline passed. auth-js reports an aborted fetch as an
    /// `AuthRetryableFetchError` with status 0; this one also has the code `timeout`.
    #[error("request timed out after {after_ms} ms")]
    Timeout { after_ms: u32 },
    /// The password was refused as weak (`AuthWeakPasswordError`, code `weak_password`).
    #[error("{message}")]
    WeakPassword {
        message: String,
        status: u16,
        reasons: Vec<String>,
    },
    /// No session where one is needed, or the server no longer knows the JWT's session
    /// (`session_not_found`): `AuthSessionMissingError`, status 400.
    #[error("Auth session missing!")]
    SessionMissing,
    /// A 2xx response that is not the session the call returns (`AuthInvalidTokenResponseError`,
    /// status 500). `reason` says what was wrong when the fields were there but malformed.
    #[error("Auth session or user missing{}", reason.as_deref().map(|reason| format!(": {reason}")).unwrap_or_default())]
    InvalidTokenResponse { reason: Option<String> },
    /// An error response whose body is not JSON (`AuthUnknownError`, no status).
    #[error("{message}")]
    Unknown { message: String },
    /// A token that is not a decodable JWT (`AuthInvalidJwtError`, status 400, code `invalid_jwt`).
    #[error("{message}")]
    InvalidJwt { message: String },
    /// Credentials with neither an email nor a phone (`AuthInvalidCredentialsError`, status 400).
    #[error("You must provide either an email or phone number and a password")]
    InvalidCredentials,
    /// The server rotated the tokens, but the session changed meanwhile (a concurrent sign-out), so
    /// the rotated tokens were dropped (`AuthRefreshDiscardedError`, status 409).
    #[error(
        "Refresh result discarded: session state changed mid-flight (e.g., concurrent signOut)"
    )]
    RefreshDiscarded,
}

impl AuthError {
    /// The auth-js class name, the `name` of the JS error.
    pub fn name(&self) -> &'static str {
        match self {
            AuthError::Api { .. } => "AuthApiError",
            AuthError::RetryableFetch { .. } | AuthError::Timeout { .. } => {
                "AuthRetryableFetchError"
            }
            AuthError::WeakPassword { .. } => "AuthWeakPasswordError",
            AuthError::SessionMissing => "AuthSessionMissingError",
            AuthError::InvalidTokenResponse { .. } => "AuthInvalidTokenResponseError",
            AuthError::Unknown { .. } => "AuthUnknownError",
            AuthError::InvalidJwt { .. } => "AuthInvalidJwtError",
            AuthError::InvalidCredentials => "AuthInvalidCredentialsError",
            AuthError::RefreshDiscarded => "AuthRefreshDiscardedError",
        }
    }

    /// The HTTP status auth-js reports (0 when no response arrived); `None` where it has none.
    pub fn status(&self) -> Option<u16> {
        match self {
            AuthError::Api { status, .. }
            | AuthError::RetryableFetch { status, .. }
            | AuthError::WeakPassword { status, .. } => Some(*status),
            AuthError::SessionMissing
            | AuthError::InvalidJwt { .. }
            | AuthError::InvalidCredentials => Some(400),
            AuthError::InvalidTokenResponse { .. } => Some(500),
            AuthError::Timeout { .. } => Some(0),
            AuthError::RefreshDiscarded => Some(409),
            AuthError::Unknown { .. } => None,
        }
    }

    /// The server's error code (e.g. `mfa_verification_failed`) or auth-js's fixed one.
    pub fn code(&self) -> Option<&str> {
        match self {
            AuthError::Api { code, .. } => code.as_deref(),
            AuthError::WeakPassword { .. } => Some("weak_password"),
            AuthError::InvalidJwt { .. } => Some("invalid_jwt"),
            AuthError::Timeout { .. } => Some("timeout"),
            _ => None,
        }
    }

    /// Whether sending the same request again may succeed: only `AuthRetryableFetchError`.
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            AuthError::RetryableFetch { .. } | AuthError::Timeout { .. }
        )
    }

    /// Why a password is weak (`length`, `characters`, `pwned`); empty for other errors.
    pub fn reasons(&self) -> &[String] {
        match self {
            AuthError::WeakPassword { reasons, .. } => reasons,
            _ => &[],
        }
    }
}

/// auth-js `NETWORK_ERROR_CODES`: server and gateway failures that must not end a session.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 500..=504 | 520..=530)
}

/// The parsed JSON body of a 2xx response, or the classified failure.
pub fn expect_json(response: Result<HttpResponse, NoResponse>) -> Result<Value, AuthError> {
    let response = expect_ok(response)?;
    // auth-js hands a JSON parse failure to `handleError`, which sees no Response and so reports
    // a retryable fetch error with status 0.
    serde_json::from_str(&response.body).map_err(|error| AuthError::RetryableFetch {
        message: format!("response body is not valid JSON: {error}"),
        status: 0,
    })
}

/// The 2xx response itself (its body unread, as `noResolveJson`), or the classified failure.
pub fn expect_ok(response: Result<HttpResponse, NoResponse>) -> Result<HttpResponse, AuthError> {
    let response = response.map_err(|failure| match failure {
        NoResponse::Network(failure) => AuthError::RetryableFetch {
            message: failure.message,
            status: 0,
        },
        NoResponse::TimedOut(timeout) => AuthError::Timeout {
            after_ms: timeout.ms(),
        },
    })?;
    if (200..=299).contains(&response.status) {
        Ok(response)
    } else {
        Err(classify_failure(&response))
    }
}

/// `handleError` for a response that is not ok.
pub fn classify_failure(response: &HttpResponse) -> AuthError {
    let status = response.status;
    let data: Option<Value> = serde_json::from_str(&response.body).ok();
    if is_retryable_status(status) {
        // auth-js would say "{}" (a stringified Response); the body's message says more.
        let message = data
            .as_ref()
            .and_then(text_message)
            .unwrap_or_else(|| format!("http status {status}"));
        return AuthError::RetryableFetch { message, status };
    }
    let Some(data) = data else {
        return AuthError::Unknown {
            message: format!("error response (http status {status}) is not JSON"),
        };
    };
    let object = data.as_object();
    let text = |field: &str| object.and_then(|o| o.get(field)).and_then(Value::as_str);
    let code = if response_api_version_is_current(response) {
        text("code")
    } else {
        None
    }
    .or_else(|| text("error_code"))
    .map(str::to_owned);
    let message = error_message(&data);
    match code.as_deref() {
        None => match object.and_then(legacy_weak_password_reasons) {
            Some(reasons) => AuthError::WeakPassword {
                message,
                status,
                reasons,
            },
            None => AuthError::Api {
                message,
                status,
                code: None,
            },
        },
        Some("weak_password") => AuthError::WeakPassword {
            message,
            status,
            reasons: object.map(weak_password_reasons).unwrap_or_default(),
        },
        Some("session_not_found") => AuthError::SessionMissing,
        Some(_) => AuthError::Api {
            message,
            status,
            code,
        },
    }
}

/// `_getErrorMessage`: the first string of msg, message, error_description, error; else the JSON.
fn error_message(data: &Value) -> String {
    text_message(data).unwrap_or_else(|| data.to_string())
}

fn text_message(data: &Value) -> Option<String> {
    let object = data.as_object()?;
    ["msg", "message", "error_description", "error"]
        .iter()
        .find_map(|field| object.get(*field).and_then(Value::as_str))
        .map(str::to_owned)
}

/// `parseResponseAPIVersion(response) >= 2024-01-01`: a valid `YYYY-MM-DD` date header.
fn response_api_version_is_current(response: &HttpResponse) -> bool {
    response
        .header(API_VERSION_HEADER)
        .is_some_and(|version| is_valid_api_date(version) && version >= API_VERSION)
}

/// `/^2[0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/` and a real calendar day (JS turns
/// `2024-02-30` into an invalid Date, which compares false).
fn is_valid_api_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = text.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    if bytes.len() != 10 || bytes[0] != b'2' || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return false;
    };
    is_calendar_date(year, month, day)
}

/// The string reasons of `weak_password.reasons`.
fn weak_password_reasons(object: &Map<String, Value>) -> Vec<String> {
    object
        .get("weak_password")
        .and_then(|weak| weak.get("reasons"))
        .and_then(Value::as_array)
        .map(|reasons| {
            reasons
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Servers without error codes signal a weak password by a non-empty all-string reason list.
fn legacy_weak_password_reasons(object: &Map<String, Value>) -> Option<Vec<String>> {
    let reasons = object
        .get("weak_password")?
        .as_object()?
        .get("reasons")?
        .as_array()?;
    let strings: Vec<String> = reasons
        .iter()
        .map(|reason| reason.as_str().map(str::to_owned))
        .collect::<Option<_>>()?;
    (!strings.is_empty()).then_some(strings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::http::NetworkFailure;
    use crate::client::request_timeout::RequestTimeout;

    fn current(status: u16, body: &str) -> HttpResponse {
        HttpResponse::new(status, body).with_header(API_VERSION_HEADER, API_VERSION)
    }

    #[test]
    fn new_style_bodies_take_the_code_when_the_response_has_the_api_version() {
        let body = r#"{"code":"mfa_verification_failed","message":"Invalid TOTP code entered"}"#;
        let error = classify_failure(&current(422, body));
        assert_eq!(
            error,
            AuthError::Api {
                message: "Invalid TOTP code entered".into(),
                status: 422,
                code: Some("mfa_verification_failed".into()),
            }
        );
        assert_eq!(error.name(), "AuthApiError");
        assert_eq!(error.code(), Some("mfa_verification_failed"));
        assert_eq!(error.status(), Some(422));
        assert!(!error.retryable());
        assert_eq!(error.to_string(), "Invalid TOTP code entered");

        let header_case =
            HttpResponse::new(422, body).with_header("X-Supabase-Api-Version", "2025-06-30");
        assert_eq!(classify_failure(&header_case), error);
    }

    #[test]
    fn old_style_bodies_take_error_code_and_msg() {
        let body = r#"{"code":422,"error_code":"mfa_challenge_expired","msg":"MFA challenge c has expired, verify against another challenge or create a new challenge."}"#;
        let error = classify_failure(&HttpResponse::new(422, body));
        assert_eq!(error.code(), Some("mfa_challenge_expired"));
        assert_eq!(
            error.to_string(),
            "MFA challenge c has expired, verify against another challenge or create a new challenge."
        );
        // A numeric `code` is never taken as the code, whatever the version.
        assert_eq!(
            classify_failure(&current(422, body)).code(),
            Some("mfa_challenge_expired")
        );
    }

    #[test]
    fn code_is_ignored_without_a_current_api_version() {
        let body = r#"{"code":"bad_jwt","message":"invalid JWT"}"#;
        for version in [
            None,
            Some("2023-12-31"),
            Some("2024-1-01"),
            Some("2024-02-30"),
            Some("x"),
        ] {
            let mut response = HttpResponse::new(403, body);
            if let Some(version) = version {
                response = response.with_header(API_VERSION_HEADER, version);
            }
            let error = classify_failure(&response);
            assert_eq!(error.code(), None, "{version:?}");
            assert_eq!(error.to_string(), "invalid JWT");
        }
        for version in ["2024-01-01", "2024-02-29", "2999-12-31"] {
            let response = HttpResponse::new(403, body).with_header(API_VERSION_HEADER, version);
            assert_eq!(
                classify_failure(&response).code(),
                Some("bad_jwt"),
                "{version}"
            );
        }
    }

    #[test]
    fn message_comes_from_msg_message_error_description_or_error_in_that_order() {
        let cases = [
            (r#"{"msg":"a","message":"b","error":"d"}"#, "a"),
            (r#"{"message":"b","error_description":"c"}"#, "b"),
            (r#"{"error_description":"c","error":"d"}"#, "c"),
            (r#"{"error":"d"}"#, "d"),
            (r#"{"msg":5,"error":"d"}"#, "d"),
            (r#"{"other":1}"#, r#"{"other":1}"#),
            ("[1,2]", "[1,2]"),
            ("\"text\"", "\"text\""),
        ];
        for (body, message) in cases {
            let error = classify_failure(&HttpResponse::new(400, body));
            assert_eq!(error.to_string(), message, "{body}");
            assert_eq!(error.status(), Some(400));
        }
    }

    #[test]
    fn server_and_gateway_statuses_are_retryable() {
        for status in [500, 501, 502, 503, 504, 520, 525, 530] {
            let error = classify_failure(&HttpResponse::new(status, "<html>"));
            assert_eq!(
                error,
                AuthError::RetryableFetch {
                    message: format!("http status {status}"),
                    status
                }
            );
            assert_eq!(error.name(), "AuthRetryableFetchError");
            assert!(error.retryable());
        }
        let error = classify_failure(&current(503, r#"{"code":"x","message":"down"}"#));
        assert_eq!(error.to_string(), "down");
        assert!(error.retryable());
        for status in [505, 511, 519, 531, 599] {
            let error = classify_failure(&HttpResponse::new(status, "{}"));
            assert_eq!(error.name(), "AuthApiError", "{status}");
            assert!(!error.retryable());
        }
    }

    #[test]
    fn network_failures_are_retryable_with_status_zero() {
        let error = expect_json(Err(NetworkFailure {
            message: "TypeError: Failed to fetch".into(),
        }
        .into()))
        .unwrap_err();
        assert_eq!(
            error,
            AuthError::RetryableFetch {
                message: "TypeError: Failed to fetch".into(),
                status: 0
            }
        );
    }

    #[test]
    fn timeouts_are_retryable_fetch_errors_with_the_code_timeout() {
        let timeout = RequestTimeout::from_ms(200.0).unwrap();
        let error = expect_ok(Err(NoResponse::TimedOut(timeout))).unwrap_err();
        assert_eq!(error, AuthError::Timeout { after_ms: 200 });
        assert_eq!(error.name(), "AuthRetryableFetchError");
        assert_eq!((error.status(), error.code()), (Some(0), Some("timeout")));
        assert!(error.retryable());
        assert_eq!(error.to_string(), "request timed out after 200 ms");
    }

    #[test]
    fn successful_bodies_must_be_json() {
        assert_eq!(
            expect_json(Ok(HttpResponse::new(200, r#"{"id":"x"}"#))),
            Ok(serde_json::json!({"id": "x"}))
        );
        let error = expect_json(Ok(HttpResponse::new(200, "<html>"))).unwrap_err();
        assert_eq!(
            (error.name(), error.status()),
            ("AuthRetryableFetchError", Some(0))
        );
        assert!(error
            .to_string()
            .starts_with("response body is not valid JSON: "));
        // No body is read when the call does not want one.
        assert!(expect_ok(Ok(HttpResponse::new(204, ""))).is_ok());
    }

    #[test]
    fn error_bodies_that_are_not_json_are_unknown_errors() {
        let error = classify_failure(&HttpResponse::new(404, "not found"));
        assert_eq!(error.name(), "AuthUnknownError");
        assert_eq!(error.status(), None);
        assert_eq!(
            error.to_string(),
            "error response (http status 404) is not JSON"
        );
    }

    #[test]
    fn session_not_found_is_the_session_missing_error() {
        let body = r#"{"code":"session_not_found","message":"Session from session_id claim in JWT does not exist"}"#;
        let error = classify_failure(&current(403, body));
        assert_eq!(error, AuthError::SessionMissing);
        assert_eq!(error.to_string(), "Auth session missing!");
        assert_eq!(
            (error.name(), error.status(), error.code()),
            ("AuthSessionMissingError", Some(400), None)
        );
        let old = r#"{"code":403,"error_code":"session_not_found","msg":"gone"}"#;
        assert_eq!(
            classify_failure(&HttpResponse::new(403, old)),
            AuthError::SessionMissing
        );
    }

    #[test]
    fn weak_passwords_carry_their_reasons() {
        let body = r#"{"code":"weak_password","message":"Password should be at least 6 characters.","weak_password":{"reasons":["length",7]}}"#;
        let error = classify_failure(&current(422, body));
        assert_eq!(
            error,
            AuthError::WeakPassword {
                message: "Password should be at least 6 characters.".into(),
                status: 422,
                reasons: vec!["length".into()],
            }
        );
        assert_eq!(
            (error.name(), error.code()),
            ("AuthWeakPasswordError", Some("weak_password"))
        );
        assert_eq!(error.reasons(), ["length"]);

        // Without any code, a non-empty all-string reason list still means a weak password.
        let legacy = r#"{"msg":"weak","weak_password":{"reasons":["characters","pwned"]}}"#;
        assert_eq!(
            classify_failure(&HttpResponse::new(422, legacy)).reasons(),
            ["characters", "pwned"]
        );
        for not_weak in [
            r#"{"msg":"x","weak_password":{"reasons":[]}}"#,
            r#"{"msg":"x","weak_password":{"reasons":["length",1]}}"#,
            r#"{"msg":"x","weak_password":null}"#,
        ] {
            assert_eq!(
                classify_failure(&HttpResponse::new(422, not_weak)).name(),
                "AuthApiError",
                "{not_weak}"
            );
        }
    }

    #[test]
    fn client_side_errors_have_auth_js_names_statuses_and_messages() {
        let cases = [
            (AuthError::InvalidTokenResponse { reason: None }, "AuthInvalidTokenResponseError", Some(500), "Auth session or user missing"),
            (
                AuthError::InvalidTokenResponse { reason: Some("user: missing field `id`".into()) },
                "AuthInvalidTokenResponseError",
                Some(500),
                "Auth session or user missing: user: missing field `id`",
            ),
            (AuthError::InvalidJwt { message: "Invalid JWT structure".into() }, "AuthInvalidJwtError", Some(400), "Invalid JWT structure"),
            (
                AuthError::InvalidCredentials,
                "AuthInvalidCredentialsError",
                Some(400),
                "You must provide either an email or phone number and a password",
            ),
            (
                AuthError::RefreshDiscarded,
                "AuthRefreshDiscardedError",
                Some(409),
                "Refresh result discarded: session state changed mid-flight (e.g., concurrent signOut)",
            ),
        ];
        for (error, name, status, message) in cases {
            assert_eq!(error.name(), name);
            assert_eq!(error.status(), status);
            assert_eq!(error.to_string(), message);
            assert!(!error.retryable());
        }
        assert_eq!(
            AuthError::InvalidJwt {
                message: String::new()
            }
            .code(),
            Some("invalid_jwt")
        );
    }
}
