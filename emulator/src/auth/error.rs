//! GoTrue's errors: a status, an `error_code` and a message, in one of two body styles chosen by
//! the request's `X-Supabase-Api-Version` header (GoTrue internal/api/errors.go):
//!
//! - no header (or a date before 2024-01-01): `{"code":<status>,"error_code":"…","msg":"…"}`;
//! - `2024-01-01` or later: `{"code":"<error_code>","message":"…"}`, and the response echoes
//!   `X-Supabase-Api-Version: 2024-01-01`.
//!
//! Both carry `x-sb-error-code` (except GoTrue's weak-password error in the new style). An
//! [`AuthError`] first renders in the old style and travels in the response's extensions;
//! [`render_in_requested_style`] (a middleware on the auth routes) re-renders it for the new
//! style. Internal failures are GoTrue's 500 `unexpected_failure`, their cause kept for the log.

use crate::auth::api_version::ApiVersion;
use crate::auth::store::StoreError;
use crate::db::Unfinished;
use crate::error::InternalErrorCause;
use crate::random;
use axum::extract::Request;
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// GoTrue's `weak_password.reasons` (only for `weak_password`).
    pub weak_password_reasons: Vec<&'static str>,
    /// Why an internal failure happened, for the log; never sent.
    cause: Option<String>,
}

const ERROR_CODE_HEADER: HeaderName = HeaderName::from_static("x-sb-error-code");

fn error(status: StatusCode, code: &'static str, message: impl Into<String>) -> AuthError {
    AuthError {
        status,
        code,
        message: message.into(),
        weak_password_reasons: Vec::new(),
        cause: None,
    }
}

fn validation_failed(message: impl Into<String>) -> AuthError {
    error(StatusCode::BAD_REQUEST, "validation_failed", message)
}

impl AuthError {
    // --- requests ------------------------------------------------------------------------

    /// `detail` is the JSON parser's complaint.
    pub fn bad_json(detail: &str) -> Self {
        error(
            StatusCode::BAD_REQUEST,
            "bad_json",
            format!("Could not parse request body as JSON: {detail}"),
        )
    }

    pub fn unsupported_grant_type() -> Self {
        error(
            StatusCode::BAD_REQUEST,
            "invalid_credentials",
            "unsupported_grant_type",
        )
    }

    fn unexpected_failure() -> Self {
        error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unexpected_failure",
            "Unexpected failure, please check server logs for more information",
        )
    }

    /// A failure of the emulator itself (the database, the random source): GoTrue's
    /// `unexpected_failure`, with `cause` for the log.
    pub fn unexpected(cause: impl std::fmt::Display) -> Self {
        AuthError {
            cause: Some(cause.to_string()),
            ..AuthError::unexpected_failure()
        }
    }

    /// A 500 GoTrue answers with a specific message (e.g. a missing session).
    pub fn internal(message: &str) -> Self {
        error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unexpected_failure",
            message,
        )
    }

    // --- sign-up and sign-in -------------------------------------------------------------

    pub fn anonymous_provider_disabled() -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "anonymous_provider_disabled",
            "Anonymous sign-ins are disabled",
        )
    }

    pub fn phone_provider_disabled() -> Self {
        error(
            StatusCode::BAD_REQUEST,
            "phone_provider_disabled",
            "Phone signups are disabled",
        )
    }

    pub fn password_required() -> Self {
        validation_failed("Signup requires a valid password")
    }

    pub fn password_too_long(max: usize) -> Self {
        validation_failed(format!("Password cannot be longer than {max} characters"))
    }

    pub fn weak_password(min: usize) -> Self {
        AuthError {
            weak_password_reasons: vec!["length"],
            ..error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "weak_password",
                format!("Password should be at least {min} characters."),
            )
        }
    }

    pub fn email_and_phone_on_signup() -> Self {
        validation_failed("Only an email address or phone number should be provided on signup.")
    }

    pub fn email_and_phone_on_login() -> Self {
        validation_failed("Only an email address or phone number should be provided on login.")
    }

    pub fn missing_email_or_phone() -> Self {
        validation_failed("missing email or phone")
    }

    pub fn email_required() -> Self {
        validation_failed("An email address is required")
    }

    pub fn email_too_long() -> Self {
        validation_failed("An email address is too long")
    }

    pub fn email_invalid() -> Self {
        validation_failed("Unable to validate email address: invalid format")
    }

    pub fn user_already_exists() -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "user_already_exists",
            "User already registered",
        )
    }

    pub fn invalid_credentials() -> Self {
        error(
            StatusCode::BAD_REQUEST,
            "invalid_credentials",
            "Invalid login credentials",
        )
    }

    // --- refresh tokens ------------------------------------------------------------------

    pub fn refresh_token_invalid() -> Self {
        validation_failed("Refresh token is not valid")
    }

    pub fn refresh_token_not_found() -> Self {
        error(
            StatusCode::BAD_REQUEST,
            "refresh_token_not_found",
            "Invalid Refresh Token: Refresh Token Not Found",
        )
    }

    pub fn refresh_token_already_used() -> Self {
        error(
            StatusCode::BAD_REQUEST,
            "refresh_token_already_used",
            "Invalid Refresh Token: Already Used",
        )
    }

    // --- the bearer token (requireAuthentication) -----------------------------------------

    pub fn no_authorization() -> Self {
        error(
            StatusCode::UNAUTHORIZED,
            "no_authorization",
            "This endpoint requires a valid Bearer token",
        )
    }

    /// `reason` is golang-jwt's error text.
    pub fn bad_jwt(reason: &str) -> Self {
        error(
            StatusCode::FORBIDDEN,
            "bad_jwt",
            format!("invalid JWT: unable to parse or verify signature, {reason}"),
        )
    }

    pub fn missing_sub_claim() -> Self {
        error(
            StatusCode::FORBIDDEN,
            "bad_jwt",
            "invalid claim: missing sub claim",
        )
    }

    pub fn sub_claim_not_uuid() -> Self {
        error(
            StatusCode::BAD_REQUEST,
            "bad_jwt",
            "invalid claim: sub claim must be a UUID",
        )
    }

    pub fn session_id_claim_not_uuid() -> Self {
        error(
            StatusCode::FORBIDDEN,
            "bad_jwt",
            "invalid claim: session_id claim must be a UUID",
        )
    }

    pub fn user_not_found() -> Self {
        error(
            StatusCode::FORBIDDEN,
            "user_not_found",
            "User from sub claim in JWT does not exist",
        )
    }

    pub fn session_not_found() -> Self {
        error(
            StatusCode::FORBIDDEN,
            "session_not_found",
            "Session from session_id claim in JWT does not exist",
        )
    }

    pub fn audience_mismatch() -> Self {
        validation_failed("Token audience doesn't match request audience")
    }

    pub fn anonymous_user() -> Self {
        error(
            StatusCode::FORBIDDEN,
            "no_authorization",
            "Anonymous user not allowed to perform these actions",
        )
    }

    pub fn unsupported_logout_scope(scope: &str) -> Self {
        validation_failed(format!("Unsupported logout scope {}", go_quote(scope)))
    }

    // --- MFA -----------------------------------------------------------------------------

    pub fn factor_id_not_uuid() -> Self {
        error(
            StatusCode::NOT_FOUND,
            "validation_failed",
            "factor_id must be an UUID",
        )
    }

    pub fn factor_not_found() -> Self {
        error(
            StatusCode::NOT_FOUND,
            "mfa_factor_not_found",
            "Factor not found",
        )
    }

    pub fn bad_factor_type() -> Self {
        validation_failed("factor_type needs to be totp, phone, or webauthn")
    }

    pub fn webauthn_enroll_disabled() -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_webauthn_enroll_not_enabled",
            "MFA enroll is disabled for WebAuthn",
        )
    }

    pub fn factor_name_conflict(name: &str) -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_factor_name_conflict",
            format!(
                "A factor with the friendly name {} for this user already exists",
                go_quote(name)
            ),
        )
    }

    pub fn too_many_factors() -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "too_many_enrolled_mfa_factors",
            "Maximum number of verified factors reached, unenroll to continue",
        )
    }

    pub fn aal2_required_to_enroll() -> Self {
        error(
            StatusCode::FORBIDDEN,
            "insufficient_aal",
            "AAL2 required to enroll a new factor",
        )
    }

    /// The emulator's own check (GoTrue checks at enrolment only): verifying a factor that is not
    /// yet verified, while the user has a verified one, needs a session that passed it.
    pub fn aal2_required_to_verify() -> Self {
        error(
            StatusCode::FORBIDDEN,
            "insufficient_aal",
            "AAL2 required to verify an additional factor",
        )
    }

    pub fn aal2_required_to_unenroll() -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "insufficient_aal",
            "AAL2 required to unenroll verified factor",
        )
    }

    pub fn phone_required() -> Self {
        validation_failed("Phone number required to enroll Phone factor")
    }

    pub fn phone_invalid() -> Self {
        validation_failed("Invalid phone number format (E.164 required)")
    }

    pub fn verified_phone_factor_exists() -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_verified_factor_exists",
            "A verified phone factor already exists, unenroll the existing factor to continue",
        )
    }

    pub fn invalid_channel() -> Self {
        validation_failed(
            "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.",
        )
    }

    pub fn code_required() -> Self {
        validation_failed("Code needs to be non-empty")
    }

    pub fn challenge_not_found() -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_factor_not_found",
            "MFA factor with the provided challenge ID not found",
        )
    }

    pub fn challenge_already_used() -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_ip_address_mismatch",
            "Challenge and verify IP addresses mismatch.",
        )
    }

    pub fn challenge_expired(challenge_id: &str) -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_challenge_expired",
            format!(
                "MFA challenge {challenge_id} has expired, verify against another challenge or create a new challenge."
            ),
        )
    }

    pub fn invalid_totp_code() -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_verification_failed",
            "Invalid TOTP code entered",
        )
    }

    pub fn invalid_phone_code() -> Self {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_verification_failed",
            "Invalid MFA Phone code entered",
        )
    }

    pub fn rate_limited() -> Self {
        error(
            StatusCode::TOO_MANY_REQUESTS,
            "over_request_rate_limit",
            "Request rate limit reached",
        )
    }

    /// The response in the body style of `version`.
    pub fn render(&self, version: ApiVersion) -> Response {
        let weak_password = (!self.weak_password_reasons.is_empty()).then(|| WeakPassword {
            reasons: &self.weak_password_reasons,
        });
        let (body, send_code_header) = match version {
            ApiVersion::Initial => (
                serde_json::to_string(&LegacyBody {
                    code: self.status.as_u16(),
                    error_code: self.code,
                    msg: &self.message,
                    weak_password,
                }),
                true,
            ),
            // GoTrue leaves the header off its new-style weak-password answer.
            ApiVersion::V2024_01_01 => (
                serde_json::to_string(&CurrentBody {
                    code: self.code,
                    message: &self.message,
                    weak_password,
                }),
                weak_password.is_none(),
            ),
        };
        let mut response = (
            self.status,
            [(header::CONTENT_TYPE, "application/json")],
            body.expect("error bodies are numbers, strings and lists of strings"),
        )
            .into_response();
        let headers = response.headers_mut();
        if send_code_header {
            headers.insert(ERROR_CODE_HEADER, HeaderValue::from_static(self.code));
        }
        if let Some(echo) = version.echo() {
            headers.insert(ApiVersion::HEADER, echo);
        }
        response
    }
}

/// SQLite's failures, and the store's, are internal errors.
impl From<rusqlite::Error> for AuthError {
    fn from(error: rusqlite::Error) -> Self {
        AuthError::unexpected(format!("sqlite: {error}"))
    }
}

impl From<StoreError> for AuthError {
    fn from(error: StoreError) -> Self {
        AuthError::unexpected(error)
    }
}

impl From<Unfinished> for AuthError {
    fn from(error: Unfinished) -> Self {
        AuthError::unexpected(error)
    }
}

impl From<random::Unavailable> for AuthError {
    fn from(error: random::Unavailable) -> Self {
        AuthError::unexpected(error)
    }
}

/// The old body style; the response carries the error (and an internal error's cause) so the
/// middleware can restyle it and the log can report it.
impl IntoResponse for AuthError {
    fn into_response(self) -> Response {
        let mut response = self.render(ApiVersion::Initial);
        if let Some(cause) = &self.cause {
            response
                .extensions_mut()
                .insert(InternalErrorCause(cause.clone()));
        }
        response.extensions_mut().insert(self);
        response
    }
}

#[derive(Serialize, Clone, Copy)]
struct WeakPassword<'a> {
    reasons: &'a [&'static str],
}

#[derive(Serialize)]
struct LegacyBody<'a> {
    code: u16,
    error_code: &'a str,
    msg: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    weak_password: Option<WeakPassword<'a>>,
}

#[derive(Serialize)]
struct CurrentBody<'a> {
    code: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    weak_password: Option<WeakPassword<'a>>,
}

/// Go's `%q` for the strings GoTrue quotes in messages (JSON string syntax matches it for
/// printable text).
fn go_quote(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

/// Middleware for the auth routes: answers errors in the body style the request asked for.
pub async fn render_in_requested_style(request: Request, next: Next) -> Response {
    let version = ApiVersion::of_request(request.headers());
    let response = next.run(request).await;
    if version == ApiVersion::Initial {
        return response;
    }
    match response.extensions().get::<AuthError>() {
        Some(error) => {
            let mut restyled = error.render(version);
            if let Some(cause) = response.extensions().get::<InternalErrorCause>().cloned() {
                restyled.extensions_mut().insert(cause);
            }
            restyled
        }
        None => response,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_quote_escapes_like_percent_q() {
        assert_eq!(go_quote("x"), "\"x\"");
        assert_eq!(go_quote("a \"b\""), "\"a \\\"b\\\"\"");
    }
}
