//! The one error type of the emulator and its HTTP form.
//!
//! PostgREST errors carry PostgREST's JSON body `{"code","details","hint","message"}` (keys in
//! that order, as Aeson encodes them), its status mapping and its `Proxy-Status` header. Errors
//! raised by Supabase's API gateway before a request reaches PostgREST (API key checks, the body
//! size limit) carry the gateway's `{"message"}` body, as do errors of the emulator's own
//! endpoints. Auth errors carry GoTrue's bodies ([`crate::auth::error`]).
//! Internal failures become a generic 500; their cause travels in a response extension so the
//! logging middleware (`log_internal_errors`) can report it: `into_response` has no side effects.

use crate::auth::api_version::ApiVersion;
use crate::auth::error::AuthError;
use crate::auth::store::StoreError;
use crate::table::{Column, LiteralError, DB_SCHEMA, TABLE};
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use std::borrow::Cow;

pub type Result<T, E = ApiError> = std::result::Result<T, E>;

#[derive(Debug)]
pub enum ApiError {
    /// An error PostgREST (or PostgreSQL behind it) would answer (boxed: it is large).
    Postgrest(Box<PostgrestError>),
    /// An error GoTrue (the auth server) would answer (boxed: it is large).
    Auth(Box<AuthError>),
    /// An error Supabase's API gateway would answer.
    Gateway {
        status: StatusCode,
        message: &'static str,
        hint: Option<&'static str>,
    },
    /// An error of the emulator's own endpoints (`/emulator/v1`), in the gateway's body shape.
    Emulator { status: StatusCode, message: String },
    /// A bug or an I/O failure in the emulator itself.
    Internal(String),
}

#[derive(Debug)]
pub struct PostgrestError {
    pub status: StatusCode,
    pub code: Cow<'static, str>,
    pub message: String,
    pub details: Option<String>,
    pub hint: Option<String>,
    pub www_authenticate: Option<String>,
    /// The `Allow` header of a 405.
    pub allow: Option<&'static str>,
}

#[derive(Serialize)]
struct PostgrestBody<'a> {
    code: &'a str,
    details: Option<&'a str>,
    hint: Option<&'a str>,
    message: &'a str,
}

#[derive(Serialize)]
struct GatewayBody<'a> {
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<&'a str>,
}

pub use crate::internal_cause::InternalErrorCause;

/// The one place the table layer's literal errors become PostgreSQL's error responses.
impl From<LiteralError> for ApiError {
    fn from(error: LiteralError) -> Self {
        match error {
            LiteralError::NulInText => ApiError::nul_in_query_text(),
            LiteralError::InvalidBigint(text) => {
                ApiError::invalid_text_representation("bigint", &text)
            }
            LiteralError::BigintOutOfRange(text) => ApiError::numeric_out_of_range(&text),
            LiteralError::InvalidTimestamp(text) => ApiError::invalid_datetime_format(&text),
            LiteralError::TimestampOutOfRange(text) => ApiError::datetime_field_overflow(&text),
        }
    }
}

/// SQLite's failures, wherever the API layer meets them, are internal errors.
impl From<rusqlite::Error> for ApiError {
    fn from(error: rusqlite::Error) -> Self {
        ApiError::internal(format!("sqlite: {error}"))
    }
}

/// The auth store's failures are internal errors; the message keeps their cause for the log.
impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        ApiError::internal(error)
    }
}

/// The one place the auth layer's errors join the API's: they render in GoTrue's style.
impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        ApiError::Auth(Box::new(error))
    }
}

/// Whether a request runs as the anonymous role (PostgREST's "authed" flag); decides 401 versus
/// 403 for privilege errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anonymity {
    /// The anonymous role (`anon`): PostgREST answers 401.
    Anonymous,
    /// Any other role (`authenticated`, `service_role`): PostgREST answers 403.
    Identified,
}

fn postgrest(status: StatusCode, code: &'static str, message: impl Into<String>) -> PostgrestError {
    PostgrestError {
        status,
        code: Cow::Borrowed(code),
        message: message.into(),
        details: None,
        hint: None,
        www_authenticate: None,
        allow: None,
    }
}

impl PostgrestError {
    fn details(mut self, details: impl Into<String>) -> Self {
        self.details = Some(details.into());
        self
    }

    fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl From<PostgrestError> for ApiError {
    fn from(error: PostgrestError) -> Self {
        ApiError::Postgrest(Box::new(error))
    }
}

impl ApiError {
    /// The PostgREST/PostgreSQL code or GoTrue error code, or "" for gateway and internal
    /// errors.
    pub fn code(&self) -> &str {
        match self {
            ApiError::Postgrest(error) => &error.code,
            ApiError::Auth(error) => error.code,
            ApiError::Gateway { .. } | ApiError::Emulator { .. } | ApiError::Internal(_) => "",
        }
    }

    pub fn internal(cause: impl std::fmt::Display) -> Self {
        ApiError::Internal(cause.to_string())
    }

    // --- Supabase API gateway ------------------------------------------------------------

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

    /// 413 from the gateway's request size limit (Kong's `request-size-limiting` answer).
    pub fn payload_too_large() -> Self {
        ApiError::Gateway {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: "Request size limit exceeded",
            hint: None,
        }
    }

    /// 400 for a fault plan that does not parse or makes no sense.
    pub fn invalid_fault_plan(problem: &str) -> Self {
        ApiError::Emulator {
            status: StatusCode::BAD_REQUEST,
            message: format!("invalid fault plan: {problem}"),
        }
    }

    /// A 5xx ordered by the fault plan, with PostgREST's body for it: PGRST001 (its answer while
    /// the database connection is down) for 503, PostgreSQL's internal error otherwise.
    pub fn injected(status: StatusCode) -> Self {
        let error = if status == StatusCode::SERVICE_UNAVAILABLE {
            postgrest(
                status,
                "PGRST001",
                "Database client error. Retrying the connection.",
            )
        } else {
            postgrest(status, "XX000", "internal error")
        };
        error
            .details("injected by the emulator's fault plan")
            .into()
    }

    // --- PostgREST request errors (PGRST1xx) -----------------------------------------------

    /// PGRST100: a query parameter failed to parse. `message` is Parsec's position line,
    /// e.g. `"failed to parse filter (x)" (line 1, column 1)`.
    pub fn query_param(message: String, details: String) -> Self {
        postgrest(StatusCode::BAD_REQUEST, "PGRST100", message)
            .details(details)
            .into()
    }

    pub fn invalid_body(message: impl Into<String>) -> Self {
        postgrest(StatusCode::BAD_REQUEST, "PGRST102", message).into()
    }

    pub fn negative_limit() -> Self {
        postgrest(
            StatusCode::RANGE_NOT_SATISFIABLE,
            "PGRST103",
            "Requested range not satisfiable",
        )
        .details("Limit should be greater than or equal to zero.")
        .into()
    }

    pub fn offset_out_of_bounds(offset: i64, total: i64) -> Self {
        postgrest(
            StatusCode::RANGE_NOT_SATISFIABLE,
            "PGRST103",
            "Requested range not satisfiable",
        )
        .details(format!(
            "An offset of {offset} was requested, but there are only {total} rows."
        ))
        .into()
    }

    pub fn unacceptable_schema(schema: &str) -> Self {
        postgrest(
            StatusCode::NOT_ACCEPTABLE,
            "PGRST106",
            format!("Invalid schema: {schema}"),
        )
        .hint(format!(
            "Only the following schemas are exposed: {DB_SCHEMA}"
        ))
        .into()
    }

    pub fn unavailable_media_type(accept: &str) -> Self {
        postgrest(
            StatusCode::NOT_ACCEPTABLE,
            "PGRST107",
            format!("None of these media types are available: {accept}"),
        )
        .into()
    }

    pub fn not_embedded(resource: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "PGRST108",
            format!("'{resource}' is not an embedded resource in this request"),
        )
        .hint(format!(
            "Verify that '{resource}' is included in the 'select' query parameter."
        ))
        .into()
    }

    pub fn singularity(rows: usize) -> Self {
        postgrest(
            StatusCode::NOT_ACCEPTABLE,
            "PGRST116",
            "Cannot coerce the result to a single JSON object",
        )
        .details(format!("The result contains {rows} rows"))
        .into()
    }

    /// PGRST117; `Allow` lists what the table endpoint answers.
    pub fn unsupported_method(method: &str) -> Self {
        let mut error = postgrest(
            StatusCode::METHOD_NOT_ALLOWED,
            "PGRST117",
            format!("Unsupported HTTP method: {method}"),
        );
        error.allow = Some("OPTIONS,GET,HEAD,POST,PATCH,DELETE");
        error.into()
    }

    pub fn invalid_preferences(preferences: &[String]) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "PGRST122",
            "Invalid preferences given with handling=strict",
        )
        .details(format!("Invalid preferences: {}", preferences.join(", ")))
        .into()
    }

    pub fn invalid_resource_path() -> Self {
        postgrest(
            StatusCode::NOT_FOUND,
            "PGRST125",
            "Invalid path specified in request URL",
        )
        .into()
    }

    /// PGRST127: valid PostgREST syntax the emulator does not implement.
    pub fn not_implemented(details: impl Into<String>) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "PGRST127",
            "Feature not implemented",
        )
        .details(details)
        .into()
    }

    // --- PostgREST schema cache errors (PGRST2xx) ------------------------------------------

    pub fn no_relationship(child: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "PGRST200",
            format!("Could not find a relationship between '{TABLE}' and '{child}' in the schema cache"),
        )
        .details(format!(
            "Searched for a foreign key relationship between '{TABLE}' and '{child}' in the schema '{DB_SCHEMA}', but no matches were found."
        ))
        .into()
    }

    pub fn column_not_found(column: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "PGRST204",
            format!("Could not find the '{column}' column of '{TABLE}' in the schema cache"),
        )
        .into()
    }

    /// PGRST205, with PostgREST's fuzzy "Perhaps you meant" hint when the name is close.
    pub fn table_not_found(schema: &str, table: &str) -> Self {
        let error = postgrest(
            StatusCode::NOT_FOUND,
            "PGRST205",
            format!("Could not find the table '{schema}.{table}' in the schema cache"),
        );
        let close = schema == DB_SCHEMA && strsim::normalized_levenshtein(table, TABLE) >= 0.5;
        if close {
            error
                .hint(format!("Perhaps you meant the table '{DB_SCHEMA}.{TABLE}'"))
                .into()
        } else {
            error.into()
        }
    }

    // --- PostgREST JWT errors (PGRST3xx) ---------------------------------------------------

    pub fn jwt_decode(message: &str, details: Option<&str>) -> Self {
        let mut error = postgrest(StatusCode::UNAUTHORIZED, "PGRST301", message);
        error.details = details.map(str::to_owned);
        error.www_authenticate = Some(invalid_token_challenge(message));
        error.into()
    }

    pub fn jwt_claims(message: &str) -> Self {
        let mut error = postgrest(StatusCode::UNAUTHORIZED, "PGRST303", message);
        error.www_authenticate = Some(invalid_token_challenge(message));
        error.into()
    }

    // --- PostgreSQL errors, as PostgREST relays them ---------------------------------------

    pub fn undefined_column(column: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "42703",
            format!("column {TABLE}.{column} does not exist"),
        )
        .into()
    }

    /// 42501; PostgREST answers 401 for the anonymous role and 403 for any other.
    pub fn insufficient_privilege(authed: Anonymity) -> Self {
        let status = match authed {
            Anonymity::Anonymous => StatusCode::UNAUTHORIZED,
            Anonymity::Identified => StatusCode::FORBIDDEN,
        };
        let mut error = postgrest(
            status,
            "42501",
            format!("permission denied for table {TABLE}"),
        );
        if authed == Anonymity::Anonymous {
            error.www_authenticate = Some("Bearer".to_owned());
        }
        error.into()
    }

    /// 22023 for a JWT `role` claim naming a role the database does not have (401).
    pub fn role_does_not_exist(role: &str) -> Self {
        let mut error = postgrest(
            StatusCode::UNAUTHORIZED,
            "22023",
            format!("role \"{role}\" does not exist"),
        );
        error.www_authenticate = Some("Bearer".to_owned());
        error.into()
    }

    pub fn invalid_text_representation(type_name: &str, text: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "22P02",
            format!("invalid input syntax for type {type_name}: \"{text}\""),
        )
        .into()
    }

    /// 22P02 for a JSON value of the wrong type in a text column. PostgreSQL would coerce a
    /// number or boolean to its text; the emulator deliberately refuses anything but a string
    /// so that client bugs surface here instead of being stored.
    pub fn not_a_string(column: Column, found: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "22P02",
            format!(
                "invalid input for column \"{}\" of relation \"{TABLE}\": expected a JSON string, found {found}",
                column.name()
            ),
        )
        .hint("The emulator accepts only JSON strings for text columns.")
        .into()
    }

    /// 22P05: PostgreSQL's text type cannot hold U+0000 from a JSON body.
    pub fn nul_in_text() -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "22P05",
            "unsupported Unicode escape sequence",
        )
        .details("\\u0000 cannot be converted to text.")
        .into()
    }

    /// 22021: a NUL byte in a query-string value is not valid text for PostgreSQL.
    pub fn nul_in_query_text() -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "22021",
            "invalid byte sequence for encoding \"UTF8\": 0x00",
        )
        .into()
    }

    pub fn numeric_out_of_range(text: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "22003",
            format!("value \"{text}\" is out of range for type bigint"),
        )
        .into()
    }

    pub fn invalid_datetime_format(text: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "22007",
            format!("invalid input syntax for type timestamp with time zone: \"{text}\""),
        )
        .into()
    }

    pub fn datetime_field_overflow(text: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "22008",
            format!("date/time field value out of range: \"{text}\""),
        )
        .into()
    }

    /// 22023 when a JSON body is not an object (or an array of objects) where rows are expected.
    pub fn not_an_object(what: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "22023",
            format!("cannot call populate_composite on {what}"),
        )
        .into()
    }

    pub fn negative_offset() -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "2201X",
            "OFFSET must not be negative",
        )
        .into()
    }

    /// 23502 with PostgreSQL's "Failing row contains (...)" detail.
    pub fn not_null_violation(column: Column, failing_row: String) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "23502",
            format!(
                "null value in column \"{}\" of relation \"{TABLE}\" violates not-null constraint",
                column.name()
            ),
        )
        .details(format!("Failing row contains ({failing_row})."))
        .into()
    }

    /// 428C9: `id` is `GENERATED ALWAYS AS IDENTITY`.
    pub fn identity_insert() -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "428C9",
            "cannot insert a non-DEFAULT value into column \"id\"",
        )
        .details("Column \"id\" is an identity column defined as GENERATED ALWAYS.")
        .hint("Use OVERRIDING SYSTEM VALUE to override.")
        .into()
    }

    pub fn identity_update() -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "428C9",
            "column \"id\" can only be updated to DEFAULT",
        )
        .details("Column \"id\" is an identity column defined as GENERATED ALWAYS.")
        .into()
    }

    /// 21000 from Supabase's `safeupdate` extension: UPDATE and DELETE need a filter.
    pub fn requires_where_clause(statement: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "21000",
            format!("{statement} requires a WHERE clause"),
        )
        .into()
    }
}

fn invalid_token_challenge(message: &str) -> String {
    let description = serde_json::to_string(message).expect("a string serialises");
    format!("Bearer error=\"invalid_token\", error_description={description}")
}

const JSON_UTF8: &str = "application/json; charset=utf-8";

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::Postgrest(error) => {
                let error = *error;
                let body = PostgrestBody {
                    code: &error.code,
                    details: error.details.as_deref(),
                    hint: error.hint.as_deref(),
                    message: &error.message,
                };
                let mut response = json_response(error.status, &body);
                let headers = response.headers_mut();
                if let Ok(value) =
                    HeaderValue::from_str(&format!("PostgREST; error={}", error.code))
                {
                    headers.insert("proxy-status", value);
                }
                if let Some(challenge) = error.www_authenticate {
                    if let Ok(value) = HeaderValue::from_str(&challenge) {
                        headers.insert(header::WWW_AUTHENTICATE, value);
                    }
                }
                if let Some(allow) = error.allow {
                    headers.insert(header::ALLOW, HeaderValue::from_static(allow));
                }
                response
            }
            ApiError::Auth(error) => {
                let mut response = error.render(ApiVersion::Initial);
                response.extensions_mut().insert(*error);
                response
            }
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
            ApiError::Internal(cause) => {
                let body = PostgrestBody {
                    code: "XX000",
                    details: None,
                    hint: None,
                    message: "internal emulator error",
                };
                let mut response = json_response(StatusCode::INTERNAL_SERVER_ERROR, &body);
                response.extensions_mut().insert(InternalErrorCause(cause));
                response
            }
        }
    }
}

fn json_response(status: StatusCode, body: &impl Serialize) -> Response {
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

    #[test]
    fn table_hint_only_for_close_names() {
        let close = ApiError::table_not_found("public", "geocache_log");
        let far = ApiError::table_not_found("public", "users");
        match (close, far) {
            (ApiError::Postgrest(close), ApiError::Postgrest(far)) => {
                assert_eq!(
                    close.hint.as_deref(),
                    Some("Perhaps you meant the table 'public.geocache_logs'")
                );
                assert_eq!(far.hint, None);
            }
            _ => panic!("expected PostgREST errors"),
        }
    }

    #[test]
    fn literal_errors_keep_their_sqlstate_as_api_errors() {
        let errors = [
            LiteralError::NulInText,
            LiteralError::InvalidBigint("x".to_owned()),
            LiteralError::BigintOutOfRange("9".repeat(20)),
            LiteralError::InvalidTimestamp("soon".to_owned()),
            LiteralError::TimestampOutOfRange("2024-13-01".to_owned()),
        ];
        for error in errors {
            let code = error.code();
            assert_eq!(ApiError::from(error).code(), code);
        }
    }

    #[test]
    fn jwt_challenge_quotes_the_message() {
        assert_eq!(
            invalid_token_challenge("JWT expired"),
            "Bearer error=\"invalid_token\", error_description=\"JWT expired\""
        );
    }
}
