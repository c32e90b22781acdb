//! When a read is sent again, as postgrest-js decides it (supabase-js `fetchWithRetry.ts` and
//! `types/common/common.ts`): only GET and HEAD, after a network failure or a 503 / 520 answer, at
//! most [`MAX_RETRIES`] times, waiting `min(1000 * 2^n, 30000)` ms before retry n + 1 (1 s, 2 s,
//! 4 s) or what a readable `Retry-After` says, each retry carrying `X-Retry-Count: n`. Writes are
//! not retried here: only a sign is sent again, with its idempotency key ([`super::signing`]).
//!
//! Two deliberate differences. postgrest-js never retries an aborted request, because its aborts
//! are the caller's; ours come from our own deadline ([`crate::RequestTimeout`]), a stalled
//! connection, retried like a dropped one. And `Retry-After` is honoured only as delay-seconds:
//! an HTTP-date falls back to the back-off (the header is not CORS-safelisted, so a browser only
//! sees it where the server exposes it).

use std::borrow::Cow;

use crate::client::http::{HttpRequest, HttpResponse, Method, NoResponse};

/// Retries after the first attempt (postgrest-js `DEFAULT_MAX_RETRIES`).
pub const MAX_RETRIES: u32 = 3;
/// 503: PostgREST has no database connection or schema cache yet; 520: Cloudflare lost the
/// origin. Both say nothing happened, and both pass with time.
pub const RETRYABLE_STATUSES: [u16; 2] = [503, 520];
/// The first retry's wait; it doubles for each further one.
pub const BASE_RETRY_DELAY_MS: u32 = 1_000;
/// No wait is longer, whether backed off or asked for by `Retry-After` (postgrest-js
/// `MAX_RETRY_AFTER_DELAY`): a server or CDN cannot stall a read for longer.
pub const MAX_RETRY_DELAY_MS: u32 = 30_000;
/// Sent on retry n as `n`, so the server's logs tell a retry from a new request.
pub const RETRY_COUNT_HEADER: &str = "x-retry-count";

/// Reads only: sending a write twice could store it twice.
pub fn is_retryable_method(method: Method) -> bool {
    matches!(method, Method::Get | Method::Head)
}

/// The back-off before the retry that follows `retries` earlier ones (postgrest-js
/// `getRetryDelay(attemptIndex)`): 1000, 2000, 4000 … ms, at most 30 000.
pub fn backoff_delay_ms(retries: u32) -> u32 {
    let factor = 1u32.checked_shl(retries).unwrap_or(u32::MAX);
    BASE_RETRY_DELAY_MS
        .saturating_mul(factor)
        .min(MAX_RETRY_DELAY_MS)
}

/// A `Retry-After` of delay-seconds (digits only, so `30s` or `1.5` are not read), in
/// milliseconds and capped at [`MAX_RETRY_DELAY_MS`]; `None` for anything else.
pub fn retry_after_ms(value: &str) -> Option<u32> {
    let seconds = value.trim();
    if seconds.is_empty() || !seconds.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    // Too many digits for a u32 is still "longer than the cap".
    let ms = seconds
        .parse::<u32>()
        .map_or(u32::MAX, |seconds| seconds.saturating_mul(1000));
    Some(ms.min(MAX_RETRY_DELAY_MS))
}

/// After a `method` request that already had `retries` retries ended in `outcome`: the wait
/// before sending it again, or `None` to hand the outcome to the caller.
pub fn retry_delay_ms(
    method: Method,
    outcome: &Result<HttpResponse, NoResponse>,
    retries: u32,
) -> Option<u32> {
    if retries >= MAX_RETRIES || !is_retryable_method(method) {
        return None;
    }
    match outcome {
        Err(NoResponse::Network(_) | NoResponse::TimedOut(_)) => Some(backoff_delay_ms(retries)),
        Ok(response) if RETRYABLE_STATUSES.contains(&response.status) => Some(
            response
                .header("retry-after")
                .and_then(retry_after_ms)
                .unwrap_or_else(|| backoff_delay_ms(retries)),
        ),
        Ok(_) => None,
    }
}

/// The request to send after `retries` retries: the request itself first, then a copy with
/// `x-retry-count: <retries>`.
pub fn attempt(request: &HttpRequest, retries: u32) -> Cow<'_, HttpRequest> {
    if retries == 0 {
        return Cow::Borrowed(request);
    }
    let mut retry = request.clone();
    retry
        .headers
        .retain(|(name, _)| !name.eq_ignore_ascii_case(RETRY_COUNT_HEADER));
    retry
        .headers
        .push((RETRY_COUNT_HEADER.into(), retries.to_string()));
    Cow::Owned(retry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::http::NetworkFailure;
    use crate::RequestTimeout;

    fn status(status: u16) -> Result<HttpResponse, NoResponse> {
        Ok(HttpResponse::new(status, ""))
    }

    fn network() -> Result<HttpResponse, NoResponse> {
        Err(NetworkFailure {
            message: "TypeError: Failed to fetch".into(),
        }
        .into())
    }

    fn timed_out() -> Result<HttpResponse, NoResponse> {
        Err(NoResponse::TimedOut(RequestTimeout::default()))
    }

    /// The waits a GET goes through when every attempt ends in `outcome`.
    fn waits(method: Method, outcome: &Result<HttpResponse, NoResponse>) -> Vec<u32> {
        (0..)
            .map_while(|retries| retry_delay_ms(method, outcome, retries))
            .collect()
    }

    #[test]
    fn back_off_doubles_from_one_second_up_to_thirty() {
        let delays: Vec<u32> = (0..7).map(backoff_delay_ms).collect();
        assert_eq!(delays, [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
        for retries in [31, 32, 33, 64, u32::MAX] {
            assert_eq!(backoff_delay_ms(retries), 30_000, "{retries}");
        }
    }

    #[test]
    fn network_failures_and_timeouts_of_reads_are_retried_three_times() {
        for method in [Method::Get, Method::Head] {
            assert_eq!(waits(method, &network()), [1000, 2000, 4000]);
            assert_eq!(waits(method, &timed_out()), [1000, 2000, 4000]);
        }
    }

    #[test]
    fn only_503_and_520_answers_are_retried() {
        assert_eq!(waits(Method::Get, &status(503)), [1000, 2000, 4000]);
        assert_eq!(waits(Method::Get, &status(520)), [1000, 2000, 4000]);
        for other in [
            200, 201, 204, 400, 401, 404, 409, 500, 501, 502, 504, 521, 530,
        ] {
            assert_eq!(
                retry_delay_ms(Method::Get, &status(other), 0),
                None,
                "{other}"
            );
        }
    }

    #[test]
    fn writes_are_never_retried() {
        for method in [Method::Post, Method::Patch, Method::Delete] {
            for outcome in [network(), timed_out(), status(503), status(520)] {
                assert_eq!(retry_delay_ms(method, &outcome, 0), None, "{method:?}");
            }
        }
    }

    #[test]
    fn a_readable_retry_after_replaces_the_back_off() {
        let answer = |value: &str| Ok(HttpResponse::new(503, "").with_header("Retry-After", value));
        assert_eq!(retry_delay_ms(Method::Get, &answer("2"), 0), Some(2000));
        assert_eq!(retry_delay_ms(Method::Get, &answer("0"), 2), Some(0));
        assert_eq!(retry_delay_ms(Method::Get, &answer("120"), 0), Some(30_000));
        // Not delay-seconds: the back-off for that retry.
        assert_eq!(retry_delay_ms(Method::Get, &answer("soon"), 1), Some(2000));
        // Still at most three retries.
        assert_eq!(retry_delay_ms(Method::Get, &answer("1"), 3), None);
        // Only for the statuses that are retried at all.
        let refused = Ok(HttpResponse::new(429, "").with_header("retry-after", "1"));
        assert_eq!(retry_delay_ms(Method::Get, &refused, 0), None);
    }

    #[test]
    fn retry_after_is_read_as_delay_seconds_only() {
        let cases = [
            ("0", Some(0)),
            ("3", Some(3000)),
            (" 2 ", Some(2000)),
            ("007", Some(7000)),
            ("30", Some(30_000)),
            ("31", Some(30_000)),
            ("99999999999999999999", Some(30_000)),
            ("", None),
            ("  ", None),
            ("-1", None),
            ("+1", None),
            ("1.5", None),
            ("30s", None),
            ("1 2", None),
            ("Wed, 21 Oct 2015 07:28:00 GMT", None),
        ];
        for (value, ms) in cases {
            assert_eq!(retry_after_ms(value), ms, "{value:?}");
        }
    }

    #[test]
    fn retries_carry_their_count_and_the_first_attempt_does_not() {
        let request = HttpRequest {
            method: Method::Get,
            url: "http://h/rest/v1/t?select=*".into(),
            headers: vec![("apikey".into(), "k".into())],
            body: None,
        };
        assert!(matches!(attempt(&request, 0), Cow::Borrowed(same) if *same == request));
        let second = attempt(&request, 1).into_owned();
        assert_eq!(second.header("X-Retry-Count"), Some("1"));
        assert_eq!(
            (&second.url, second.header("apikey")),
            (&request.url, Some("k"))
        );
        let third = attempt(&second, 2);
        let counts: Vec<_> = third
            .headers
            .iter()
            .filter(|(name, _)| name == RETRY_COUNT_HEADER)
            .collect();
        assert_eq!(counts, [&("x-retry-count".to_owned(), "2".to_owned())]);
    }
}
