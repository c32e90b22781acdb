//! `signLogbook`: one sign, one idempotency key ([`SignKey`]), resent with that key until it is
//! answered. The database stores a key's sign once and answers a resend as a success that stored
//! nothing, so sending again after a lost answer cannot double the entry.
//!
//! A sign is resent after a network failure, a timeout (our own deadline), or a 502, 503, 504,
//! 520, 522 or 524 (a gateway or Cloudflare that lost or could not reach the origin, or
//! PostgREST without a database connection), at most [`MAX_RESENDS`] times, waiting as reads do
//! (1 s, 2 s, 4 s, or a readable `Retry-After`; [`super::retry`]) and carrying `X-Retry-Count`.
//! Any other answer is final: a 2xx is success, a 4xx a refusal, and a 500 an error inside
//! PostgREST or PostgreSQL, which a resend would only repeat.
//!
//! A failed sign says whether it may have been stored ([`StoredOutcome`]): when every attempt
//! was answered with a refusal nothing was stored; once any attempt failed without an answer or
//! with a 5xx, it may have been. Either way the error carries the key, and a sign sent again with
//! it is still stored at most once.

use std::borrow::Cow;

use crate::client::config::ClientConfig;
use crate::client::http::{HttpRequest, HttpResponse, NoResponse};
use crate::logbook::entry::NewEntry;
use crate::logbook::entry_list::EntryList;
use crate::logbook::outcome::LogbookError;
use crate::rest::logbook::{sign_logbook_outcome, TABLE};
use crate::rest::retry::{self, backoff_delay_ms, retry_after_ms};
use crate::rest::sign_key::{SignKey, KEY_HEADER};
use crate::rest::Postgrest;

/// Resends after the first attempt.
pub const MAX_RESENDS: u32 = 3;
/// Answers that say the request did not reach the database, or its answer did not come back:
/// bad gateway, unavailable, gateway timeout, and Cloudflare's unknown error, origin
/// unreachable and origin timeout.
pub const RESENDABLE_STATUSES: [u16; 6] = [502, 503, 504, 520, 522, 524];

/// Whether a failed `signLogbook` may have left the entry in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoredOutcome {
    /// Every attempt was refused: nothing was stored.
    NotStored,
    /// Some attempt failed without a definite answer: it may have been stored. Signing again
    /// with the same key stores it at most once.
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

/// A failed `signLogbook`: the last attempt's error, what it means for the entry, and the key
/// to sign again with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
pub struct SignError {
    pub error: LogbookError,
    pub outcome: StoredOutcome,
    pub key: SignKey,
}

/// What a sign's answer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignAnswer {
    /// The row as stored (`.select()`: `Prefer: return=representation`), for a page to show
    /// at once.
    StoredRow,
    /// Nothing (PostgREST's default, `return=minimal`): for a sign kept and sent later by code
    /// that reads only the status. An empty answer has no middle to be cut in, so its status
    /// never arrives without the rest of it.
    StatusOnly,
}

/// `.from('geocache_logs').insert({name, message})` with `Idempotency-Key: <key>`, and
/// `.select()` when the answer is to hold the stored row.
pub fn sign_request(
    config: &ClientConfig,
    session_token: Option<&str>,
    entry: &NewEntry,
    key: &SignKey,
    answer: SignAnswer,
) -> HttpRequest {
    let insert = Postgrest::new(config, session_token)
        .from(TABLE)
        .insert(entry.to_json());
    let insert = match answer {
        SignAnswer::StoredRow => insert.returning("*"),
        SignAnswer::StatusOnly => insert,
    };
    insert.header(KEY_HEADER, key.as_str()).build()
}

/// After an attempt that ended in `outcome` with `resends` resends before it: the wait before
/// sending the sign again, or `None` when the outcome is final.
pub fn resend_delay_ms(outcome: &Result<HttpResponse, NoResponse>, resends: u32) -> Option<u32> {
    if resends >= MAX_RESENDS {
        return None;
    }
    match outcome {
        Err(NoResponse::Network(_) | NoResponse::TimedOut(_)) => Some(backoff_delay_ms(resends)),
        Ok(response) if RESENDABLE_STATUSES.contains(&response.status) => Some(
            response
                .header("retry-after")
                .and_then(retry_after_ms)
                .unwrap_or_else(|| backoff_delay_ms(resends)),
        ),
        Ok(_) => None,
    }
}

/// Whether an attempt that ended in `error` may have stored the sign: no answer, or a 5xx (a
/// server may fail after committing, a gateway after forwarding).
fn may_be_stored(error: &LogbookError) -> bool {
    matches!(
        error,
        LogbookError::Network { .. } | LogbookError::Timeout { .. }
    ) || error.status() >= 500
}

/// What to do after an attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum SignStep {
    /// Stored, with the row as the server stored it: none when the server did not send it back
    /// (a resend of a sign an earlier attempt stored sends `[]`).
    Stored(EntryList),
    /// Send [`Signing::request`] again after this many milliseconds.
    Resend {
        delay_ms: u32,
    },
    Failed(SignError),
}

/// One sign in progress: its request and key, how often it was resent, and whether an earlier
/// attempt may have stored it.
#[derive(Debug, Clone)]
pub struct Signing {
    request: HttpRequest,
    key: SignKey,
    resends: u32,
    maybe_stored: bool,
}

impl Signing {
    pub fn new(
        config: &ClientConfig,
        session_token: Option<&str>,
        entry: &NewEntry,
        key: SignKey,
    ) -> Signing {
        Signing {
            request: sign_request(config, session_token, entry, &key, SignAnswer::StoredRow),
            key,
            resends: 0,
            maybe_stored: false,
        }
    }

    /// The next attempt: the insert, then copies with `X-Retry-Count: n`.
    pub fn request(&self) -> Cow<'_, HttpRequest> {
        retry::attempt(&self.request, self.resends)
    }

    pub fn key(&self) -> &SignKey {
        &self.key
    }

    /// Takes the outcome of the attempt just sent.
    pub fn accept(&mut self, outcome: Result<HttpResponse, NoResponse>) -> SignStep {
        let delay = resend_delay_ms(&outcome, self.resends);
        let error = match sign_logbook_outcome(outcome) {
            Ok(stored) => return SignStep::Stored(stored),
            Err(error) => error,
        };
        self.maybe_stored |= may_be_stored(&error);
        if let Some(delay_ms) = delay {
            self.resends += 1;
            return SignStep::Resend { delay_ms };
        }
        SignStep::Failed(SignError {
            error,
            outcome: if self.maybe_stored {
                StoredOutcome::Unknown
            } else {
                StoredOutcome::NotStored
            },
            key: self.key.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::http::{Method, NetworkFailure};
    use crate::RequestTimeout;

    const KEY: &str = "123e4567-e89b-42d3-a456-426614174000";

    fn config() -> ClientConfig {
        ClientConfig::new("http://127.0.0.1:54321", "anon").unwrap()
    }

    fn entry() -> NewEntry {
        NewEntry {
            name: "Ann".into(),
            message: "Found it! <3".into(),
        }
    }

    fn signing() -> Signing {
        Signing::new(
            &config(),
            Some("token"),
            &entry(),
            SignKey::parse(KEY).unwrap(),
        )
    }

    fn answer(status: u16) -> Result<HttpResponse, NoResponse> {
        Ok(HttpResponse::new(status, ""))
    }

    fn dropped() -> Result<HttpResponse, NoResponse> {
        Err(NetworkFailure {
            message: "TypeError: Failed to fetch".into(),
        }
        .into())
    }

    fn timed_out() -> Result<HttpResponse, NoResponse> {
        Err(NoResponse::TimedOut(RequestTimeout::default()))
    }

    /// The steps of a sign whose every attempt ends as `outcome` says.
    fn steps(outcome: impl Fn() -> Result<HttpResponse, NoResponse>) -> Vec<SignStep> {
        let mut signing = signing();
        let mut steps = Vec::new();
        loop {
            let step = signing.accept(outcome());
            let done = !matches!(step, SignStep::Resend { .. });
            steps.push(step);
            if done {
                return steps;
            }
        }
    }

    fn resends(delays: &[u32]) -> Vec<SignStep> {
        delays
            .iter()
            .map(|&delay_ms| SignStep::Resend { delay_ms })
            .collect()
    }

    #[test]
    fn the_insert_carries_the_key_and_the_body_stays_the_entry() {
        let request = signing().request().into_owned();
        assert_eq!(request.method, Method::Post);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/rest/v1/geocache_logs?select=*"
        );
        assert_eq!(request.header("prefer"), Some("return=representation"));
        assert_eq!(request.header("Idempotency-Key"), Some(KEY));
        assert_eq!(request.header("authorization"), Some("Bearer token"));
        assert_eq!(request.header("x-retry-count"), None);
        assert_eq!(
            request.body.as_deref(),
            Some(r#"{"name":"Ann","message":"Found it! <3"}"#)
        );
    }

    /// supabase-js's `.from('geocache_logs').insert({name, message}).select()`, plus the key.
    #[test]
    fn the_insert_matches_supabase_js_with_its_key() {
        let config = ClientConfig::new("http://127.0.0.1:54321", "anon")
            .unwrap()
            .with_client_info("geocache-client/0.1.0; runtime=web");
        let key = SignKey::parse(KEY).unwrap();
        let headers = [
            ("x-client-info", "geocache-client/0.1.0; runtime=web"),
            ("apikey", "anon"),
            ("authorization", "Bearer user-token"),
            ("prefer", "return=representation"),
            ("idempotency-key", KEY),
            ("content-profile", "public"),
            ("content-type", "application/json"),
        ];
        assert_eq!(
            sign_request(
                &config,
                Some("user-token"),
                &entry(),
                &key,
                SignAnswer::StoredRow
            ),
            HttpRequest {
                method: Method::Post,
                url: "http://127.0.0.1:54321/rest/v1/geocache_logs?select=*".into(),
                headers: headers
                    .iter()
                    .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                    .collect(),
                body: Some(r#"{"name":"Ann","message":"Found it! <3"}"#.into()),
            }
        );
    }

    #[test]
    fn a_sign_kept_for_later_asks_for_no_row() {
        let key = SignKey::parse(KEY).unwrap();
        let kept = sign_request(&config(), None, &entry(), &key, SignAnswer::StatusOnly);
        let sent = signing().request().into_owned();
        assert_eq!(kept.url, "http://127.0.0.1:54321/rest/v1/geocache_logs");
        assert_eq!(kept.header("prefer"), None);
        assert_eq!(kept.header("idempotency-key"), Some(KEY));
        assert_eq!((kept.method, &kept.body), (sent.method, &sent.body));
    }

    #[test]
    fn resends_carry_the_same_key_and_their_count() {
        let mut signing = signing();
        let first = signing.request().into_owned();
        assert_eq!(
            signing.accept(dropped()),
            SignStep::Resend { delay_ms: 1000 }
        );
        let second = signing.request().into_owned();
        assert_eq!(second.header("idempotency-key"), Some(KEY));
        assert_eq!(second.header("x-retry-count"), Some("1"));
        assert_eq!((&second.url, &second.body), (&first.url, &first.body));
        assert_eq!(
            signing.accept(answer(201)),
            SignStep::Stored(EntryList::default())
        );
    }

    #[test]
    fn a_stored_sign_gives_its_row_as_stored() {
        let row = r#"[{"id":9,"created_at":"2024-05-01T10:00:00.5+00:00","name":"Ann","message":"Found it! <3"}]"#;
        let SignStep::Stored(rows) = signing().accept(Ok(HttpResponse::new(201, row))) else {
            panic!("stored")
        };
        let stored = rows.get(0).unwrap();
        assert_eq!((rows.len(), stored.id, stored.name), (1, 9.0, "Ann"));
    }

    #[test]
    fn two_hundreds_are_stored_at_once() {
        for status in [200, 201, 204] {
            assert_eq!(
                steps(|| answer(status)),
                [SignStep::Stored(EntryList::default())],
                "{status}"
            );
        }
    }

    #[test]
    fn lost_answers_and_gateway_failures_are_resent_three_times_then_unknown() {
        type Outcome = fn() -> Result<HttpResponse, NoResponse>;
        let cases: [(Outcome, &str); 8] = [
            (dropped, "network_error"),
            (timed_out, "timeout"),
            (|| answer(502), "server_error"),
            (|| answer(503), "server_error"),
            (|| answer(504), "server_error"),
            (|| answer(520), "server_error"),
            (|| answer(522), "server_error"),
            (|| answer(524), "server_error"),
        ];
        for (outcome, code) in cases {
            let mut steps = steps(outcome);
            let last = steps.pop().unwrap();
            assert_eq!(steps, resends(&[1000, 2000, 4000]), "{code}");
            let SignStep::Failed(error) = last else {
                panic!("{code}: {last:?}")
            };
            assert_eq!(error.error.code(), code);
            assert_eq!(error.outcome, StoredOutcome::Unknown);
            assert_eq!(error.key.as_str(), KEY);
        }
    }

    #[test]
    fn refusals_and_500_are_final() {
        for status in [400, 401, 403, 404, 409, 413, 429, 302] {
            let steps = steps(|| answer(status));
            let [SignStep::Failed(error)] = steps.as_slice() else {
                panic!("{status}: {steps:?}")
            };
            assert_eq!(error.error.status(), status);
            assert_eq!(error.outcome, StoredOutcome::NotStored, "{status}");
        }
        // A 500 is PostgREST's or PostgreSQL's own error: sending it again repeats it. Its
        // transaction may have failed after the row was written, so the outcome stays open.
        for status in [500, 501, 505, 521, 530] {
            let steps = steps(|| answer(status));
            let [SignStep::Failed(error)] = steps.as_slice() else {
                panic!("{status}: {steps:?}")
            };
            assert_eq!(error.outcome, StoredOutcome::Unknown, "{status}");
        }
    }

    #[test]
    fn a_refusal_after_a_lost_answer_leaves_the_outcome_unknown() {
        let mut signing = signing();
        assert_eq!(
            signing.accept(timed_out()),
            SignStep::Resend { delay_ms: 1000 }
        );
        let SignStep::Failed(error) = signing.accept(answer(401)) else {
            panic!("final")
        };
        assert_eq!(
            (error.error.status(), error.outcome),
            (401, StoredOutcome::Unknown)
        );
    }

    #[test]
    fn a_sign_answered_after_resends_is_stored() {
        let mut signing = signing();
        assert_eq!(
            signing.accept(answer(503)),
            SignStep::Resend { delay_ms: 1000 }
        );
        assert_eq!(
            signing.accept(dropped()),
            SignStep::Resend { delay_ms: 2000 }
        );
        assert_eq!(
            signing.accept(answer(201)),
            SignStep::Stored(EntryList::default())
        );
    }

    #[test]
    fn retry_after_replaces_the_back_off() {
        let answer = |status: u16, value: &str| {
            Ok(HttpResponse::new(status, "").with_header("Retry-After", value))
        };
        assert_eq!(resend_delay_ms(&answer(503, "2"), 0), Some(2000));
        assert_eq!(resend_delay_ms(&answer(524, "0"), 1), Some(0));
        assert_eq!(resend_delay_ms(&answer(502, "120"), 0), Some(30_000));
        assert_eq!(resend_delay_ms(&answer(503, "soon"), 2), Some(4000));
        assert_eq!(resend_delay_ms(&answer(503, "1"), 3), None);
        assert_eq!(resend_delay_ms(&answer(429, "1"), 0), None);
    }

    #[test]
    fn sign_errors_read_as_the_error_that_caused_them() {
        let error = SignError {
            error: LogbookError::Timeout { after_ms: 300 },
            outcome: StoredOutcome::Unknown,
            key: SignKey::parse(KEY).unwrap(),
        };
        assert_eq!(error.to_string(), "request timed out after 300 ms");
        assert_eq!(error.outcome.as_str(), "unknown");
        assert_eq!(StoredOutcome::NotStored.as_str(), "not_stored");
    }
}
