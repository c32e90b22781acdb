//! PostgREST's errors and their HTTP form.
//!
//! Every error carries PostgREST's JSON body ([`PostgrestBody`]), its status mapping and its
//! `Proxy-Status` header; those PostgreSQL raises carry their SQLSTATE as the code. Internal
//! failures are the emulator's generic 500 ([`ApiError::Internal`]).

use crate::db::Unfinished;
use crate::error::{json_response, ApiError, PostgrestBody};
use crate::keys::{Anonymity, JwtError};
use crate::table::{Column, LiteralError, CHANGES_TABLE, DB_SCHEMA, TABLE};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::borrow::Cow;

/// The one error type of `/rest/v1`.
#[derive(Debug)]
pub enum RestError {
    /// An error PostgREST (or PostgreSQL behind it) would answer (boxed: it is large).
    Postgrest(Box<PostgrestError>),
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

impl From<PostgrestError> for RestError {
    fn from(error: PostgrestError) -> Self {
        RestError::Postgrest(Box::new(error))
    }
}

/// The one place the table layer's literal errors become PostgreSQL's error responses.
impl From<LiteralError> for RestError {
    fn from(error: LiteralError) -> Self {
        match error {
            LiteralError::NulInText => RestError::nul_in_query_text(),
            LiteralError::InvalidBigint(text) => {
                RestError::invalid_text_representation("bigint", &text)
            }
            LiteralError::BigintOutOfRange(text) => RestError::numeric_out_of_range(&text),
            LiteralError::InvalidTimestamp(text) => RestError::invalid_datetime_format(&text),
            LiteralError::TimestampOutOfRange(text) => RestError::datetime_field_overflow(&text),
        }
    }
}

/// A bearer token PostgREST refuses: its PGRST3xx errors, or PostgreSQL's for an unknown role.
impl From<JwtError> for RestError {
    fn from(error: JwtError) -> Self {
        match error {
            JwtError::Empty => {
                RestError::jwt_decode("Empty JWT is sent in Authorization header", None)
            }
            JwtError::UnexpectedParts(parts) => {
                RestError::jwt_decode(&format!("Expected 3 parts in JWT; got {parts}"), None)
            }
            JwtError::Undecodable => RestError::jwt_decode("JWT couldn't be decoded", None),
            JwtError::BadAlgorithm => {
                RestError::jwt_decode("Wrong or unsupported encoding algorithm", None)
            }
            JwtError::BadSignature => {
                RestError::jwt_decode("JWT cryptographic operation failed", None)
            }
            JwtError::Expired => RestError::jwt_claims("JWT expired"),
            JwtError::NotYetValid => RestError::jwt_claims("JWT not yet valid"),
            JwtError::IssuedInFuture => RestError::jwt_claims("JWT issued at future"),
            JwtError::ClaimsNotAnObject => RestError::jwt_claims("Parsing claims failed"),
            JwtError::ClaimNotNumber(claim) => {
                RestError::jwt_claims(&format!("The JWT '{claim}' claim must be a number"))
            }
            JwtError::AudienceNotStrings => {
                RestError::jwt_claims("The JWT 'aud' claim must be a string or an array of strings")
            }
            JwtError::UnknownRole(role) => RestError::role_does_not_exist(&role),
            // PostgREST's words for a token whose audience it does not take.
            JwtError::WrongAudience => RestError::jwt_claims("JWT not in audience"),
            // Not a bearer rule (a bearer without a role runs as anon); worded as a missing role.
            JwtError::NoRole => RestError::role_does_not_exist(""),
        }
    }
}

/// SQLite's failures are internal errors.
impl From<rusqlite::Error> for RestError {
    fn from(error: rusqlite::Error) -> Self {
        RestError::internal(format!("sqlite: {error}"))
    }
}

impl From<Unfinished> for RestError {
    fn from(error: Unfinished) -> Self {
        RestError::internal(error)
    }
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

impl RestError {
    /// The PostgREST or PostgreSQL code, or "" for an internal error.
    pub fn code(&self) -> &str {
        match self {
            RestError::Postgrest(error) => &error.code,
            RestError::Internal(_) => "",
        }
    }

    pub fn internal(cause: impl std::fmt::Display) -> Self {
        RestError::Internal(cause.to_string())
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

    /// PGRST101: functions answer POST, and GET and HEAD too when not VOLATILE. `allow` lists
    /// what the function answers, when it is known.
    pub fn unsupported_rpc_method(method: &str, allow: Option<&'static str>) -> Self {
        let mut error = postgrest(
            StatusCode::METHOD_NOT_ALLOWED,
            "PGRST101",
            format!("Cannot use the {method} method on RPC"),
        );
        error.allow = allow;
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

    pub fn no_relationship(parent: &str, child: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "PGRST200",
            format!("Could not find a relationship between '{parent}' and '{child}' in the schema cache"),
        )
        .details(format!(
            "Searched for a foreign key relationship between '{parent}' and '{child}' in the schema '{DB_SCHEMA}', but no matches were found."
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

    /// PGRST205, with PostgREST's fuzzy "Perhaps you meant" hint when the name is close to an
    /// exposed table's.
    pub fn table_not_found(schema: &str, table: &str) -> Self {
        let error = postgrest(
            StatusCode::NOT_FOUND,
            "PGRST205",
            format!("Could not find the table '{schema}.{table}' in the schema cache"),
        );
        let closest = (schema == DB_SCHEMA)
            .then(|| closest_name(table, &[TABLE, CHANGES_TABLE]))
            .flatten();
        match closest {
            Some(close) => error
                .hint(format!("Perhaps you meant the table '{DB_SCHEMA}.{close}'"))
                .into(),
            None => error.into(),
        }
    }

    /// PGRST202: no function of that name takes exactly the arguments sent. `arguments` are the
    /// body's keys, sorted; `json_body` tells a POST with a JSON body, for which PostgREST also
    /// looked for a function taking the whole body as one parameter. `hint` names the function
    /// meant, with its parameters, when there is one.
    pub fn function_not_found(
        function: &str,
        arguments: &[String],
        json_body: bool,
        hint: Option<String>,
    ) -> Self {
        let listed = arguments.join(", ");
        let (in_message, in_details) = match arguments.len() {
            0 => (
                " without parameters".to_owned(),
                " without parameters".to_owned(),
            ),
            1 => (format!("({listed})"), format!(" with parameter {listed}")),
            _ => (format!("({listed})"), format!(" with parameters {listed}")),
        };
        let single = if json_body {
            " or with a single unnamed json/jsonb parameter"
        } else {
            ""
        };
        let error = postgrest(
            StatusCode::NOT_FOUND,
            "PGRST202",
            format!("Could not find the function {DB_SCHEMA}.{function}{in_message} in the schema cache"),
        )
        .details(format!(
            "Searched for the function {DB_SCHEMA}.{function}{in_details}{single}, but no matches were found in the schema cache."
        ));
        match hint {
            Some(meant) => error
                .hint(format!(
                    "Perhaps you meant to call the function {DB_SCHEMA}.{meant}"
                ))
                .into(),
            None => error.into(),
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

    pub fn undefined_column(relation: &str, column: &str) -> Self {
        postgrest(
            StatusCode::BAD_REQUEST,
            "42703",
            format!("column {relation}.{column} does not exist"),
        )
        .into()
    }

    /// 42501 on `geocache_logs`; PostgREST answers 401 for the anonymous role and 403 for any
    /// other.
    pub fn insufficient_privilege(authed: Anonymity) -> Self {
        RestError::permission_denied(authed, &format!("table {TABLE}"))
    }

    /// PostgreSQL's 42501 for an object (`table <name>`, `function <name>`) the role holds no
    /// privilege on.
    pub fn permission_denied(authed: Anonymity, object: &str) -> Self {
        RestError::refused(authed, format!("permission denied for {object}"))
    }

    /// 42501 raised by the migration's owner functions: the caller is no owner at aal2. `action`
    /// completes "... may <action>.".
    pub fn owner_only(authed: Anonymity, action: &str) -> Self {
        RestError::refused(
            authed,
            format!("Only the logbook's owner, signed in with a second factor, may {action}."),
        )
    }

    /// A 42501 with `message`: 401 for the anonymous role (with PostgREST's `WWW-Authenticate`),
    /// 403 for any other.
    fn refused(authed: Anonymity, message: String) -> Self {
        let status = match authed {
            Anonymity::Anonymous => StatusCode::UNAUTHORIZED,
            Anonymity::Identified => StatusCode::FORBIDDEN,
        };
        let mut error = postgrest(status, "42501", message);
        if authed == Anonymity::Anonymous {
            error.www_authenticate = Some("Bearer".to_owned());
        }
        error.into()
    }

    /// P0002 from `restore_geocache_log`, which PostgREST answers with 500 (a PL/pgSQL error
    /// other than P0001).
    pub fn not_a_removed_entry(entry_id: Option<i64>) -> Self {
        let id = entry_id.map_or_else(|| "null".to_owned(), |id| id.to_string());
        postgrest(
            StatusCode::INTERNAL_SERVER_ERROR,
            "P0002",
            format!("Entry {id} is not a removed entry."),
        )
        .into()
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

/// The candidate closest to `name`, if close enough for PostgREST's fuzzy hints.
pub(crate) fn closest_name<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|candidate| (strsim::normalized_levenshtein(name, candidate), *candidate))
        .filter(|(score, _)| *score >= 0.5)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

fn invalid_token_challenge(message: &str) -> String {
    let description = serde_json::to_string(message).expect("a string serialises");
    format!("Bearer error=\"invalid_token\", error_description={description}")
}

impl IntoResponse for RestError {
    fn into_response(self) -> Response {
        let error = match self {
            RestError::Postgrest(error) => *error,
            RestError::Internal(cause) => return ApiError::Internal(cause).into_response(),
        };
        let body = PostgrestBody {
            code: &error.code,
            details: error.details.as_deref(),
            hint: error.hint.as_deref(),
            message: &error.message,
        };
        let mut response = json_response(error.status, &body);
        let headers = response.headers_mut();
        if let Ok(value) = HeaderValue::from_str(&format!("PostgREST; error={}", error.code)) {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_hint_only_for_close_names() {
        let close = RestError::table_not_found("public", "geocache_log");
        let far = RestError::table_not_found("public", "users");
        match (close, far) {
            (RestError::Postgrest(close), RestError::Postgrest(far)) => {
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
    fn literal_errors_keep_their_sqlstate_as_rest_errors() {
        let errors = [
            LiteralError::NulInText,
            LiteralError::InvalidBigint("x".to_owned()),
            LiteralError::BigintOutOfRange("9".repeat(20)),
            LiteralError::InvalidTimestamp("soon".to_owned()),
            LiteralError::TimestampOutOfRange("2024-13-01".to_owned()),
        ];
        for error in errors {
            let code = error.code();
            assert_eq!(RestError::from(error).code(), code);
        }
    }

    /// The gateway answers a body that broke off as PostgREST does, byte for byte.
    #[tokio::test]
    async fn the_gateways_unreadable_body_is_postgrests_pgrst102() {
        use http_body_util::BodyExt;
        let ours = ApiError::UnreadableBody.into_response();
        let postgrest = RestError::invalid_body("Could not read the request body").into_response();
        assert_eq!(ours.status(), postgrest.status());
        assert_eq!(ours.headers(), postgrest.headers());
        let body =
            |response: Response| async { response.into_body().collect().await.unwrap().to_bytes() };
        assert_eq!(body(ours).await, body(postgrest).await);
    }

    #[test]
    fn jwt_challenge_quotes_the_message() {
        assert_eq!(
            invalid_token_challenge("JWT expired"),
            "Bearer error=\"invalid_token\", error_description=\"JWT expired\""
        );
    }
}
