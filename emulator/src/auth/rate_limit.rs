//! The MFA rate limit (GoTrue `MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`, 15 a minute): challenge
//! requests and verify requests are counted separately, per user, over a sliding minute.
//! (GoTrue counts per IP address with a token bucket; per user is what a local emulator can
//! tell apart.)

use crate::auth::error::AuthError;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

const WINDOW_MICROS: i64 = 60_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Challenge,
    Verify,
}

#[derive(Debug, Default)]
pub struct RateLimiter {
    hits: Mutex<HashMap<(String, Action), VecDeque<i64>>>,
}

impl RateLimiter {
    /// Counts one request by `user_id` at `now` (microseconds), or refuses it when `limit`
    /// requests of this kind already happened in the last minute. Refused requests do not count.
    pub fn check(
        &self,
        user_id: &str,
        action: Action,
        limit: u32,
        now: i64,
    ) -> Result<(), AuthError> {
        // Nothing can leave the map half-updated, so a poisoned lock is still usable.
        let mut hits = self
            .hits
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let recent = hits.entry((user_id.to_owned(), action)).or_default();
        while recent
            .front()
            .is_some_and(|&hit| hit <= now - WINDOW_MICROS)
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
}
