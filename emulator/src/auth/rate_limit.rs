//! The auth server's rate limits, counted over a sliding window (GoTrue counts with token buckets
//! of the same size; a sliding window never lets more through in any window, so it is at least as
//! strict):
//!
//! - MFA challenge requests, and separately verify requests, per user per minute
//!   (`MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`);
//! - per client address per five minutes, as the Supabase CLI's `[auth.rate_limit]`: sign-ins and
//!   sign-ups together (`sign_in_sign_ups`), session refreshes (`token_refresh`), and OTP and MFA
//!   verifications (`token_verifications`).

use crate::auth::error::AuthError;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

const MINUTE_MICROS: i64 = 60_000_000;
const FIVE_MINUTES_MICROS: i64 = 5 * MINUTE_MICROS;
/// Past this many tracked keys, keys with no hit left in their window are forgotten, so a stream
/// of new addresses cannot grow the map without bound.
const PRUNE_ABOVE_KEYS: usize = 10_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Per user.
    Challenge,
    /// Per user.
    Verify,
    /// Per client address.
    SignInSignUp,
    /// Per client address.
    TokenRefresh,
    /// Per client address.
    TokenVerification,
}

impl Action {
    fn window_micros(self) -> i64 {
        match self {
            Action::Challenge | Action::Verify => MINUTE_MICROS,
            Action::SignInSignUp | Action::TokenRefresh | Action::TokenVerification => {
                FIVE_MINUTES_MICROS
            }
        }
    }
}

#[derive(Debug, Default)]
pub struct RateLimiter {
    hits: Mutex<HashMap<(String, Action), VecDeque<i64>>>,
}

impl RateLimiter {
    /// Counts one request by `key` (a user id or a client address) at `now` (microseconds), or
    /// refuses it when `limit` requests of this kind already happened in the action's window.
    /// Refused requests do not count.
    pub fn check(&self, key: &str, action: Action, limit: u32, now: i64) -> Result<(), AuthError> {
        // Nothing can leave the map half-updated, so a poisoned lock is still usable.
        let mut hits = self
            .hits
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if hits.len() > PRUNE_ABOVE_KEYS {
            hits.retain(|(_, action), recent| {
                recent
                    .back()
                    .is_some_and(|&hit| hit > now - action.window_micros())
            });
        }
        let recent = hits.entry((key.to_owned(), action)).or_default();
        while recent
            .front()
            .is_some_and(|&hit| hit <= now - action.window_micros())
        {
            recent.pop_front();
        }
        if recent.len() >= usize::try_from(limit).unwrap_or(usize::MAX) {
            return Err(AuthError::rate_limited());
        }
        recent.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: i64 = 1_000_000;

    #[test]
    fn the_limit_applies_per_user_and_action_over_a_sliding_minute() {
        let limiter = RateLimiter::default();
        for second in 0..3 {
            assert!(limiter
                .check("a", Action::Verify, 3, second * SECOND)
                .is_ok());
        }
        assert_eq!(
            limiter.check("a", Action::Verify, 3, 59 * SECOND),
            Err(AuthError::rate_limited())
        );
        assert!(limiter
            .check("a", Action::Challenge, 3, 59 * SECOND)
            .is_ok());
        assert!(limiter.check("b", Action::Verify, 3, 59 * SECOND).is_ok());
        // The first hit leaves the window exactly a minute later.
        assert!(limiter.check("a", Action::Verify, 3, 60 * SECOND).is_ok());
        assert_eq!(
            limiter.check("a", Action::Verify, 3, 60 * SECOND),
            Err(AuthError::rate_limited())
        );
    }

    #[test]
    fn address_limits_span_five_minutes() {
        let limiter = RateLimiter::default();
        for action in [
            Action::SignInSignUp,
            Action::TokenRefresh,
            Action::TokenVerification,
        ] {
            assert!(limiter.check("203.0.113.5", action, 1, 0).is_ok());
            assert_eq!(
                limiter.check("203.0.113.5", action, 1, 299 * SECOND),
                Err(AuthError::rate_limited()),
                "{action:?}"
            );
            assert!(limiter
                .check("203.0.113.5", action, 1, 300 * SECOND)
                .is_ok());
        }
    }

    #[test]
    fn idle_keys_are_forgotten_when_many_are_tracked() {
        let limiter = RateLimiter::default();
        for index in 0..=PRUNE_ABOVE_KEYS {
            limiter
                .check(&index.to_string(), Action::SignInSignUp, 1, 0)
                .unwrap();
        }
        limiter
            .check("late", Action::SignInSignUp, 1, 301 * SECOND)
            .unwrap();
        assert_eq!(limiter.hits.lock().unwrap().len(), 1);
    }
}
