//! The logbook's spam limit, the same rule as the hosted migration
//! (`supabase/migrations/*_geocache_logs_sign_limit.sql`): for `anon` and `authenticated`
//! inserts, at most so many rows per request, so many signs per client address per minute, and
//! so many signs per minute from everyone together. A refused insert stores nothing and uses up
//! no budget, and is answered as PostgREST answers the migration's `PT429`: HTTP 429 with the
//! same message, details and hint.
//!
//! Minutes are calendar minutes, as the migration's `date_trunc('minute', now())`. Requests from
//! this machine (a loopback peer, no proxy in between) are not limited, so local tests and
//! `npm start` are never throttled; `--sign-limit-loopback` limits them too.

use crate::http::client_address::ClientAddress;
use crate::keys::Role;
use crate::rest::error::{PostgrestError, RestError};
use axum::http::StatusCode;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Mutex;

const MINUTE_MICROS: i64 = 60_000_000;
/// The key counting every client together (the migration's `'*'`).
const EVERYONE: &str = "*";

/// The thresholds; `None` turns that limit off (the migration's NULL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignLimits {
    pub max_signs_per_request: Option<u32>,
    pub max_signs_per_address_minute: Option<u32>,
    pub max_signs_per_minute: Option<u32>,
    /// Whether loopback clients are limited too (for tests of the limit).
    pub limit_loopback: bool,
}

/// The migration's defaults.
pub const DEFAULT_MAX_SIGNS_PER_REQUEST: u32 = 10;
pub const DEFAULT_MAX_SIGNS_PER_ADDRESS_MINUTE: u32 = 30;
pub const DEFAULT_MAX_SIGNS_PER_MINUTE: u32 = 300;

impl Default for SignLimits {
    fn default() -> Self {
        SignLimits {
            max_signs_per_request: Some(DEFAULT_MAX_SIGNS_PER_REQUEST),
            max_signs_per_address_minute: Some(DEFAULT_MAX_SIGNS_PER_ADDRESS_MINUTE),
            max_signs_per_minute: Some(DEFAULT_MAX_SIGNS_PER_MINUTE),
            limit_loopback: false,
        }
    }
}

/// The thresholds and the signs counted per (client key, minute).
#[derive(Debug, Default)]
pub struct SignLimiter {
    pub limits: SignLimits,
    counts: Mutex<HashMap<(String, i64), u32>>,
}

impl SignLimiter {
    pub fn new(limits: SignLimits) -> SignLimiter {
        SignLimiter {
            limits,
            counts: Mutex::default(),
        }
    }

    /// Counts `signs` rows stored by one request of `role` from `client` at `now`
    /// (microseconds), or refuses the request without counting anything.
    pub fn admit(
        &self,
        role: Role,
        client: &ClientAddress,
        signs: usize,
        now: i64,
    ) -> Result<(), RestError> {
        let limited_role = matches!(role, Role::Anon | Role::Authenticated);
        let exempt = client.is_local() && !self.limits.limit_loopback;
        if signs == 0 || !limited_role || exempt {
            return Ok(());
        }
        let signs = u32::try_from(signs).unwrap_or(u32::MAX);
        if let Some(max) = self.limits.max_signs_per_request {
            if signs > max {
                return Err(refusal(
                    format!("Too many entries in one request: {signs}, at most {max}."),
                    "The logbook takes a few entries per request, not a whole list.".to_owned(),
                    "Sign one entry at a time.",
                ));
            }
        }
        let minute = now.div_euclid(MINUTE_MICROS);
        // Nothing can leave the map half-updated, so a poisoned lock is still usable.
        let mut counts = self
            .counts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // Minutes before the previous one are forgotten (a request that began just before the
        // minute turned may still count in the previous one).
        counts.retain(|(_, window), _| *window >= minute - 1);
        let address_key = (client.key(), minute);
        let everyone_key = (EVERYONE.to_owned(), minute);
        let by_address = counts
            .get(&address_key)
            .copied()
            .unwrap_or(0)
            .saturating_add(signs);
        if let Some(max) = self.limits.max_signs_per_address_minute {
            if by_address > max {
                return Err(refusal(
                    "Too many signs from your network in the last minute.".to_owned(),
                    format!("At most {max} signs a minute come from one address."),
                    "Wait a minute, then sign again.",
                ));
            }
        }
        let by_everyone = counts
            .get(&everyone_key)
            .copied()
            .unwrap_or(0)
            .saturating_add(signs);
        if let Some(max) = self.limits.max_signs_per_minute {
            if by_everyone > max {
                return Err(refusal(
                    "The logbook is taking too many signs right now.".to_owned(),
                    format!("At most {max} signs a minute are taken from all visitors together."),
                    "Wait a minute, then sign again.",
                ));
            }
        }
        counts.insert(address_key, by_address);
        counts.insert(everyone_key, by_everyone);
        Ok(())
    }
}

/// PostgREST's answer to `raise sqlstate 'PT429'`: the status from the code, the raise's texts.
fn refusal(message: String, details: String, hint: &str) -> RestError {
    PostgrestError {
        status: StatusCode::TOO_MANY_REQUESTS,
        code: Cow::Borrowed("PT429"),
        message,
        details: Some(details),
        hint: Some(hint.to_owned()),
        www_authenticate: None,
        allow: None,
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::IpAddr;

    const MINUTE: i64 = MINUTE_MICROS;

    fn from(address: &str) -> ClientAddress {
        ClientAddress::Known(address.parse::<IpAddr>().unwrap())
    }

    fn code(result: Result<(), RestError>) -> String {
        match result {
            Err(RestError::Postgrest(error)) => {
                assert_eq!(error.status, StatusCode::TOO_MANY_REQUESTS);
                format!("{}: {}", error.code, error.message)
            }
            other => panic!("not refused: {other:?}"),
        }
    }

    fn limiter(per_request: u32, per_address: u32, per_minute: u32) -> SignLimiter {
        SignLimiter::new(SignLimits {
            max_signs_per_request: Some(per_request),
            max_signs_per_address_minute: Some(per_address),
            max_signs_per_minute: Some(per_minute),
            limit_loopback: false,
        })
    }

    #[test]
    fn a_request_over_the_row_cap_is_refused_and_uses_no_budget() {
        let limits = limiter(3, 3, 100);
        let client = from("203.0.113.1");
        assert!(
            code(limits.admit(Role::Anon, &client, 4, 0)).starts_with("PT429: Too many entries")
        );
        limits.admit(Role::Anon, &client, 3, 0).unwrap();
    }

    #[test]
    fn each_address_has_a_minutes_budget_and_the_next_minute_starts_afresh() {
        let limits = limiter(10, 3, 100);
        let (client, other) = (from("203.0.113.1"), from("203.0.113.2"));
        limits.admit(Role::Authenticated, &client, 2, 0).unwrap();
        limits
            .admit(Role::Authenticated, &client, 1, MINUTE - 1)
            .unwrap();
        assert!(code(limits.admit(Role::Anon, &client, 1, MINUTE - 1)).contains("your network"));
        limits.admit(Role::Anon, &other, 3, MINUTE - 1).unwrap();
        limits.admit(Role::Anon, &client, 3, MINUTE).unwrap();
    }

    #[test]
    fn everyone_together_has_a_ceiling_and_a_refusal_counts_for_nobody() {
        let limits = limiter(10, 10, 5);
        limits
            .admit(Role::Anon, &from("203.0.113.1"), 4, 0)
            .unwrap();
        let second = from("203.0.113.2");
        assert!(code(limits.admit(Role::Anon, &second, 2, 0)).contains("too many signs right now"));
        limits.admit(Role::Anon, &second, 1, 0).unwrap();
        assert!(code(limits.admit(Role::Anon, &second, 1, 0)).contains("right now"));
    }

    #[test]
    fn the_service_role_and_local_clients_are_not_limited() {
        let limits = limiter(1, 1, 1);
        for _ in 0..3 {
            limits
                .admit(Role::ServiceRole, &from("203.0.113.1"), 5, 0)
                .unwrap();
            limits.admit(Role::Anon, &from("127.0.0.1"), 5, 0).unwrap();
            limits
                .admit(Role::Anon, &ClientAddress::InProcess, 5, 0)
                .unwrap();
        }
        let strict = SignLimiter::new(SignLimits {
            limit_loopback: true,
            ..limits.limits
        });
        strict.admit(Role::Anon, &from("::1"), 1, 0).unwrap();
        assert!(code(strict.admit(Role::Anon, &from("::1"), 1, 0)).contains("your network"));
    }

    #[test]
    fn a_limit_set_to_none_is_off() {
        let limits = SignLimiter::new(SignLimits {
            max_signs_per_request: None,
            max_signs_per_address_minute: None,
            max_signs_per_minute: None,
            limit_loopback: true,
        });
        limits
            .admit(Role::Anon, &from("203.0.113.1"), 10_000, 0)
            .unwrap();
    }
}
