//! `signLogbook` without blind retries. When an insert's answer is lost (the connection dropped,
//! the deadline passed, a 5xx from the server or a gateway), the row may or may not have been
//! stored, and sending it again could store it twice. So the client
//!
//! 1. reads a watermark first, the newest id ([`watermark_request`], a read, retried as reads
//!    are); if that fails, nothing is sent and the call fails with [`StoredOutcome::NotStored`];
//! 2. sends the insert once ([`insert_outcome`]): 2xx is success, any other answer below 500 a
//!    definite refusal, and the rest is ambiguous;
//! 3. after an ambiguous outcome, reads the rows after the watermark ([`verification_request`],
//!    retried as reads are) and looks for one with exactly the signed name and message
//!    ([`verification_outcome`]): found is success, not found fails with the insert's own error
//!    and [`StoredOutcome::NotStored`], and a failed read with [`StoredOutcome::Unknown`].
//!
//! Known limits. An identical name and message signed by someone else after the watermark counts
//! as ours, so an unstored entry can be reported stored (our row is then missing, never
//! doubled). And a request aborted at its deadline that the server still commits after the
//! verification read is not seen: the call reports `NotStored` although the row appears later.
//! Only an idempotency key stored with the row would close both gaps; the table has none.

use crate::config::ClientConfig;
use crate::entry::NewEntry;
use crate::http::HttpRequest;
use crate::outcome::{expect_success, LogbookError, NoResponse, RawResponse};
use crate::rest::logbook::{sign_logbook_outcome, TABLE};
use crate::rest::rows::{has_entry, max_id};
use crate::rest::Postgrest;

/// The newest id before the insert; every row stored after it has a larger id (identity values
/// are drawn from a sequence when the row is inserted). `None` when the table was empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Watermark(pub Option<i64>);

/// Whether a failed `signLogbook` left the entry in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredOutcome {
    /// Not stored: nothing was sent, the server refused it, or it is not there afterwards.
    /// Signing again cannot double it.
    NotStored,
    /// The insert's outcome was ambiguous and checking for it failed too: look before signing
    /// again.
    Unknown,
}

impl StoredOutcome {
    /// The `outcome` property of the JS error.
    pub fn as_str(self) -> &'static str {
        match self {
            StoredOutcome::NotStored => "not_stored",
            StoredOutcome::Unknown => "unknown",
        }
    }
}

/// A failed `signLogbook`: the error that made it fail, and what it means for the entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
pub struct SignError {
    pub error: LogbookError,
    pub outcome: StoredOutcome,
}

impl SignError {
    pub fn not_stored(error: LogbookError) -> Self {
        SignError {
            error,
            outcome: StoredOutcome::NotStored,
        }
    }
}

/// What the insert's own answer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InsertOutcome {
    Stored,
    /// The server answered and refused (4xx, or any other non-5xx): nothing was stored.
    Refused(LogbookError),
    /// No answer, a timeout or a 5xx: the row may have been stored before things went wrong.
    Ambiguous(LogbookError),
}

/// `.from('geocache_logs').select('id').order('id', {ascending: false}).limit(1)`
pub fn watermark_request(config: &ClientConfig, session_token: Option<&str>) -> HttpRequest {
    Postgrest::new(config, session_token)
        .from(TABLE)
        .select("id")
        .order("id", false)
        .limit(1)
        .build()
}

pub fn watermark_outcome(
    response: Result<RawResponse, NoResponse>,
) -> Result<Watermark, LogbookError> {
    let response = expect_success(response)?;
    let status = response.status;
    max_id(&response.body)
        .map(Watermark)
        .map_err(|error| LogbookError::Body { status, error })
}

pub fn insert_outcome(response: Result<RawResponse, NoResponse>) -> InsertOutcome {
    match sign_logbook_outcome(response) {
        Ok(()) => InsertOutcome::Stored,
        // 5xx: a server may fail after committing, a gateway after forwarding.
        Err(error)
            if matches!(
                error,
                LogbookError::Network { .. } | LogbookError::Timeout { .. }
            ) || error.status() >= 500 =>
        {
            InsertOutcome::Ambiguous(error)
        }
        Err(error) => InsertOutcome::Refused(error),
    }
}

/// `.from('geocache_logs').select('id,name,message').gt('id', watermark).order('id')`: every
/// row stored since the watermark, ours among them if it landed.
pub fn verification_request(
    config: &ClientConfig,
    session_token: Option<&str>,
    watermark: Watermark,
) -> HttpRequest {
    let builder = Postgrest::new(config, session_token)
        .from(TABLE)
        .select("id,name,message");
    let builder = match watermark.0 {
        Some(id) => builder.gt("id", &id.to_string()),
        None => builder,
    };
    builder.order("id", true).build()
}

/// The answer to an ambiguous insert that failed with `insert_error`, given the verification
/// read's `response`.
pub fn verification_outcome(
    insert_error: LogbookError,
    entry: &NewEntry,
    response: Result<RawResponse, NoResponse>,
) -> Result<(), SignError> {
    let found = expect_success(response).and_then(|response| {
        let status = response.status;
        has_entry(&response.body, &entry.name, &entry.message)
            .map_err(|error| LogbookError::Body { status, error })
    });
    match found {
        Ok(true) => Ok(()),
        Ok(false) => Err(SignError::not_stored(insert_error)),
        Err(_) => Err(SignError {
            error: insert_error,
            outcome: StoredOutcome::Unknown,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Method;
    use crate::outcome::NetworkFailure;
    use crate::RequestTimeout;

    fn config() -> ClientConfig {
        ClientConfig::new("http://127.0.0.1:54321", "anon").unwrap()
    }

    fn entry() -> NewEntry {
        NewEntry {
            name: "Ann".into(),
            message: "Found it! <3".into(),
        }
    }

    fn answer(status: u16, body: &str) -> Result<RawResponse, NoResponse> {
        Ok(RawResponse::new(status, body))
    }

    fn dropped() -> Result<RawResponse, NoResponse> {
        Err(NetworkFailure {
            message: "TypeError: Failed to fetch".into(),
        }
        .into())
    }

    fn unavailable() -> LogbookError {
        LogbookError::Server {
            status: 503,
            body: String::new(),
        }
    }

    #[test]
    fn the_watermark_is_a_read_of_the_newest_id() {
        let request = watermark_request(&config(), Some("token"));
        assert_eq!(request.method, Method::Get);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/rest/v1/geocache_logs?select=id&order=id.desc&limit=1"
        );
        assert_eq!(request.header("authorization"), Some("Bearer token"));
        assert_eq!(request.header("accept-profile"), Some("public"));
        assert_eq!(request.body, None);
    }

    #[test]
    fn watermarks_are_read_from_the_body() {
        assert_eq!(
            watermark_outcome(answer(200, r#"[{"id":41}]"#)),
            Ok(Watermark(Some(41)))
        );
        assert_eq!(watermark_outcome(answer(200, "[]")), Ok(Watermark(None)));
        let error = watermark_outcome(answer(200, r#"[{"id":"41"}]"#)).unwrap_err();
        assert_eq!((error.code(), error.status()), ("schema_mismatch", 200));
        let error = watermark_outcome(answer(503, "")).unwrap_err();
        assert_eq!(error.code(), "server_error");
        let error = watermark_outcome(dropped()).unwrap_err();
        assert_eq!(error.code(), "network_error");
    }

    #[test]
    fn the_verification_reads_every_row_after_the_watermark_in_id_order() {
        let request = verification_request(&config(), Some("token"), Watermark(Some(41)));
        assert_eq!(request.method, Method::Get);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/rest/v1/geocache_logs?select=id%2Cname%2Cmessage&id=gt.41&order=id.asc"
        );
        assert_eq!(request.header("authorization"), Some("Bearer token"));
        let request = verification_request(&config(), Some("token"), Watermark(Some(-3)));
        assert!(request.url.contains("&id=gt.-3&"), "{}", request.url);
        // An empty table had no rows before ours: read them all.
        let request = verification_request(&config(), Some("token"), Watermark(None));
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/rest/v1/geocache_logs?select=id%2Cname%2Cmessage&order=id.asc"
        );
    }

    #[test]
    fn two_hundreds_are_stored_and_refusals_are_definite() {
        assert_eq!(insert_outcome(answer(201, "")), InsertOutcome::Stored);
        assert_eq!(insert_outcome(answer(204, "")), InsertOutcome::Stored);
        for status in [400, 401, 403, 404, 409, 413, 429, 302] {
            let body = r#"{"code":"23514","details":null,"hint":null,"message":"no"}"#;
            assert!(
                matches!(insert_outcome(answer(status, body)), InsertOutcome::Refused(error) if error.status() == status),
                "{status}"
            );
        }
    }

    #[test]
    fn lost_answers_timeouts_and_server_errors_are_ambiguous() {
        let timeout = RequestTimeout::from_ms(300.0).unwrap();
        let cases = [
            (dropped(), "network_error"),
            (Err(NoResponse::TimedOut(timeout)), "timeout"),
            (answer(500, ""), "server_error"),
            (answer(502, "<html>Bad Gateway</html>"), "server_error"),
            (
                answer(503, r#"{"code":"PGRST001","message":"no connection"}"#),
                "PGRST001",
            ),
            (answer(504, ""), "server_error"),
            (answer(520, ""), "server_error"),
        ];
        for (response, code) in cases {
            match insert_outcome(response) {
                InsertOutcome::Ambiguous(error) => assert_eq!(error.code(), code),
                other => panic!("{code}: {other:?}"),
            }
        }
    }

    #[test]
    fn an_ambiguous_insert_found_after_the_watermark_is_stored() {
        let rows = r#"[{"id":42,"name":"Bob","message":"x"},{"id":43,"name":"Ann","message":"Found it! <3"}]"#;
        assert_eq!(
            verification_outcome(unavailable(), &entry(), answer(200, rows)),
            Ok(())
        );
    }

    #[test]
    fn an_ambiguous_insert_not_found_was_not_stored_and_keeps_its_error() {
        let rows = r#"[{"id":42,"name":"Ann","message":"Found it! <3 "}]"#;
        for body in [rows, "[]"] {
            assert_eq!(
                verification_outcome(unavailable(), &entry(), answer(200, body)),
                Err(SignError {
                    error: unavailable(),
                    outcome: StoredOutcome::NotStored
                })
            );
        }
    }

    #[test]
    fn a_failed_verification_leaves_the_outcome_unknown() {
        let unknown = Err(SignError {
            error: unavailable(),
            outcome: StoredOutcome::Unknown,
        });
        for response in [
            dropped(),
            answer(503, ""),
            answer(401, r#"{"message":"Invalid API key"}"#),
            answer(200, "<html>"),
            answer(200, r#"[{"id":43,"name":"Ann"}]"#),
        ] {
            assert_eq!(
                verification_outcome(unavailable(), &entry(), response),
                unknown
            );
        }
    }

    #[test]
    fn sign_errors_read_as_the_error_that_caused_them() {
        let error = SignError::not_stored(LogbookError::Timeout { after_ms: 300 });
        assert_eq!(error.to_string(), "request timed out after 300 ms");
        assert_eq!(error.outcome.as_str(), "not_stored");
        assert_eq!(StoredOutcome::Unknown.as_str(), "unknown");
    }
}
