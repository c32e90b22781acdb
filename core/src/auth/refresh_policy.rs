//! When to refresh a session, as pure functions of an explicit `now` (a [`UnixTime`]). The numbers mirror auth-js 2.109 src/lib/constants.ts and the decisions its
//! `_autoRefreshTokenTick`, `__loadSession`, `_refreshAccessToken` and `_callRefreshToken` make.

use std::time::Duration;

use super::error::AuthError;
use super::session::Session;
use crate::client::unix_time::UnixTime;

/// The session is checked for refresh at this interval.
pub const AUTO_REFRESH_TICK_DURATION_MS: u32 = 30_000;
/// A refresh is due when the access token expires within this many ticks.
pub const AUTO_REFRESH_TICK_THRESHOLD: u32 = 3;
/// Reading the session refreshes it when it expires within this margin (3 ticks).
pub const EXPIRY_MARGIN_MS: u32 = AUTO_REFRESH_TICK_THRESHOLD * AUTO_REFRESH_TICK_DURATION_MS;
/// After a failed refresh, callers with the same refresh token get the cached failure for this
/// many ticks instead of sending another request.
pub const REFRESH_FAILURE_COOLDOWN_TICKS: u32 = 2;
pub const REFRESH_FAILURE_COOLDOWN_MS: u32 =
    REFRESH_FAILURE_COOLDOWN_TICKS * AUTO_REFRESH_TICK_DURATION_MS;
/// Retry n (n ≥ 1) of a refresh waits `RETRY_BASE_DELAY_MS * 2^(n-1)`: 200, 400, 800 … ms.
pub const RETRY_BASE_DELAY_MS: u32 = 200;

/// The refresh timing. Every duration derives from the tick, as in auth-js; only tests shorten it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefreshPolicy {
    tick_ms: u32,
}

impl Default for RefreshPolicy {
    fn default() -> Self {
        RefreshPolicy {
            tick_ms: AUTO_REFRESH_TICK_DURATION_MS,
        }
    }
}

/// What an auto-refresh tick does.
#[derive(Debug, Clone, PartialEq)]
pub enum TickDecision {
    /// Refresh with this token now.
    Refresh {
        refresh_token: String,
    },
    Skip(TickSkip),
}

/// Why a tick does nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TickSkip {
    /// Another refresh is under way; it will save its result.
    RefreshInFlight,
    /// No stored session, or one without a refresh token or expiry.
    NoSession,
    /// The last refresh with this token failed within the cooldown.
    CoolingDown,
    /// More than the threshold of ticks left.
    NotDue { expires_in_ticks: f64 },
}

impl RefreshPolicy {
    /// A policy with another tick length (test-only); `None` for a zero tick.
    pub fn with_tick_ms(tick_ms: u32) -> Option<Self> {
        (tick_ms > 0).then_some(RefreshPolicy { tick_ms })
    }

    pub fn tick_ms(self) -> u32 {
        self.tick_ms
    }

    /// `EXPIRY_MARGIN_MS` for this tick length.
    pub fn expiry_margin_ms(self) -> f64 {
        f64::from(AUTO_REFRESH_TICK_THRESHOLD) * f64::from(self.tick_ms)
    }

    /// `REFRESH_FAILURE_COOLDOWN_MS` for this tick length.
    pub fn failure_cooldown_ms(self) -> f64 {
        f64::from(REFRESH_FAILURE_COOLDOWN_TICKS) * f64::from(self.tick_ms)
    }

    /// The failure cool-down as a duration, for [`FailureCooldown`].
    fn failure_cooldown(self) -> Duration {
        Duration::from_millis(u64::from(REFRESH_FAILURE_COOLDOWN_TICKS) * u64::from(self.tick_ms))
    }

    /// `floor((expires_at * 1000 - now) / tick)`: whole ticks left (negative once expired).
    pub fn expires_in_ticks(self, expires_at: UnixTime, now: UnixTime) -> f64 {
        (expires_at.millis_since(now) / f64::from(self.tick_ms)).floor()
    }

    /// One auto-refresh tick, reading the session as stored at fire time.
    pub fn tick(
        self,
        now: UnixTime,
        refresh_in_flight: bool,
        session: Option<&Session>,
        cooldown: &FailureCooldown,
    ) -> TickDecision {
        if refresh_in_flight {
            return TickDecision::Skip(TickSkip::RefreshInFlight);
        }
        let Some(session) = session.filter(|s| !s.refresh_token.is_empty() && s.expires_at != 0.0)
        else {
            return TickDecision::Skip(TickSkip::NoSession);
        };
        let expires_in_ticks = self.expires_in_ticks(session.expiry(), now);
        if expires_in_ticks > f64::from(AUTO_REFRESH_TICK_THRESHOLD) {
            return TickDecision::Skip(TickSkip::NotDue { expires_in_ticks });
        }
        if cooldown.cached(&session.refresh_token, now).is_some() {
            return TickDecision::Skip(TickSkip::CoolingDown);
        }
        TickDecision::Refresh {
            refresh_token: session.refresh_token.clone(),
        }
    }

    /// Whether reading the session (getSession, recovery) must refresh it first: less than the
    /// expiry margin left.
    pub fn needs_refresh(self, expires_at: UnixTime, now: UnixTime) -> bool {
        expires_at.millis_since(now) < self.expiry_margin_ms()
    }

    /// The wait before attempt `attempt` (0 = the first request, sent at once).
    pub fn retry_delay_ms(attempt: u32) -> u32 {
        match attempt {
            0 => 0,
            n => RETRY_BASE_DELAY_MS.saturating_mul(2u32.saturating_pow(n - 1)),
        }
    }

    /// After attempt `attempt` failed with `error` at `now`: retry only a retryable failure, and
    /// only while the next attempt would still start within one tick of the first.
    pub fn should_retry(
        self,
        attempt: u32,
        error: &AuthError,
        now: UnixTime,
        started_at: UnixTime,
    ) -> bool {
        let next_delay = Duration::from_millis(u64::from(Self::retry_delay_ms(attempt + 1)));
        error.retryable() && (now + next_delay).millis_since(started_at) < f64::from(self.tick_ms)
    }
}

/// Whether the access token has expired: after a failed refresh the session is removed only
/// then; a still-valid token keeps the user signed in until it really expires (auth-js 2.109).
pub fn access_token_expired(expires_at: UnixTime, now: UnixTime) -> bool {
    expires_at <= now
}

/// Whether a failed refresh ends the stored session: a non-retryable failure once the stored
/// access token is expired (or there is no stored session to keep).
pub fn remove_session_after_failure(
    error: &AuthError,
    stored_expires_at: Option<UnixTime>,
    now: UnixTime,
) -> bool {
    !error.retryable()
        && stored_expires_at.is_none_or(|expires_at| access_token_expired(expires_at, now))
}

/// The last refresh failure, kept for the cooldown and keyed by its refresh token, so a fresh
/// token (a new sign-in, `setSession`) is tried at once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FailureCooldown {
    last: Option<CachedFailure>,
}

#[derive(Debug, Clone, PartialEq)]
struct CachedFailure {
    refresh_token: String,
    until: UnixTime,
    error: AuthError,
}

impl FailureCooldown {
    pub fn record(
        &mut self,
        policy: RefreshPolicy,
        refresh_token: &str,
        error: AuthError,
        now: UnixTime,
    ) {
        self.last = Some(CachedFailure {
            refresh_token: refresh_token.to_owned(),
            until: now + policy.failure_cooldown(),
            error,
        });
    }

    /// The cached failure for this token while the cooldown lasts.
    pub fn cached(&self, refresh_token: &str, now: UnixTime) -> Option<&AuthError> {
        self.last
            .as_ref()
            .filter(|failure| failure.refresh_token == refresh_token && now < failure.until)
            .map(|failure| &failure.error)
    }

    /// Forgets the failure (a refresh succeeded or the session was removed).
    pub fn clear(&mut self) {
        self.last = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::session::tests::session;

    const NOW: f64 = 1_700_000_000_000.0;

    fn at(ms: f64) -> UnixTime {
        UnixTime::from_millis(ms)
    }

    fn secs(seconds: f64) -> UnixTime {
        UnixTime::from_seconds(seconds)
    }
    const TICK: f64 = AUTO_REFRESH_TICK_DURATION_MS as f64;

    fn expiring_in(ms: f64) -> Session {
        let mut session = session();
        session.expires_at = (NOW + ms) / 1000.0;
        session
    }

    fn decide(session: &Session) -> TickDecision {
        RefreshPolicy::default().tick(at(NOW), false, Some(session), &FailureCooldown::default())
    }

    fn refresh() -> TickDecision {
        TickDecision::Refresh {
            refresh_token: "r1".into(),
        }
    }

    fn network() -> AuthError {
        AuthError::RetryableFetch {
            message: "Failed to fetch".into(),
            status: 0,
        }
    }

    fn refused() -> AuthError {
        AuthError::Api {
            message: "Invalid Refresh Token: Already Used".into(),
            status: 400,
            code: Some("refresh_token_already_used".into()),
        }
    }

    #[test]
    fn constants_mirror_auth_js() {
        assert_eq!(AUTO_REFRESH_TICK_DURATION_MS, 30_000);
        assert_eq!(AUTO_REFRESH_TICK_THRESHOLD, 3);
        assert_eq!(EXPIRY_MARGIN_MS, 90_000);
        assert_eq!(REFRESH_FAILURE_COOLDOWN_MS, 60_000);
        let policy = RefreshPolicy::default();
        assert_eq!(policy.tick_ms(), 30_000);
        assert_eq!(policy.expiry_margin_ms(), 90_000.0);
        assert_eq!(policy.failure_cooldown_ms(), 60_000.0);
    }

    #[test]
    fn exactly_three_ticks_left_refreshes_and_four_does_not() {
        // 4 ticks left: floor(120 000 / 30 000) = 4.
        assert_eq!(
            decide(&expiring_in(4.0 * TICK)),
            TickDecision::Skip(TickSkip::NotDue {
                expires_in_ticks: 4.0
            })
        );
        // One millisecond less is 3 ticks (floored): refresh.
        assert_eq!(decide(&expiring_in(4.0 * TICK - 1.0)), refresh());
        assert_eq!(decide(&expiring_in(3.0 * TICK)), refresh());
        assert_eq!(decide(&expiring_in(1.0)), refresh());
        // Already expired: negative ticks, still refreshed.
        assert_eq!(decide(&expiring_in(-5.0 * TICK)), refresh());
    }

    #[test]
    fn ticks_skip_without_a_usable_session_or_while_refreshing() {
        let policy = RefreshPolicy::default();
        let cooldown = FailureCooldown::default();
        let due = expiring_in(TICK);
        assert_eq!(
            policy.tick(at(NOW), true, Some(&due), &cooldown),
            TickDecision::Skip(TickSkip::RefreshInFlight)
        );
        assert_eq!(
            policy.tick(at(NOW), false, None, &cooldown),
            TickDecision::Skip(TickSkip::NoSession)
        );
        let mut no_token = due.clone();
        no_token.refresh_token.clear();
        let mut no_expiry = due.clone();
        no_expiry.expires_at = 0.0;
        for session in [no_token, no_expiry] {
            assert_eq!(
                policy.tick(at(NOW), false, Some(&session), &cooldown),
                TickDecision::Skip(TickSkip::NoSession)
            );
        }
    }

    #[test]
    fn a_failed_refresh_cools_down_for_two_ticks_for_the_same_token_only() {
        let policy = RefreshPolicy::default();
        let mut cooldown = FailureCooldown::default();
        cooldown.record(policy, "r1", refused(), at(NOW));
        let due = expiring_in(TICK);
        assert_eq!(cooldown.cached("r1", at(NOW)), Some(&refused()));
        assert_eq!(
            policy.tick(at(NOW + 2.0 * TICK - 1.0), false, Some(&due), &cooldown),
            TickDecision::Skip(TickSkip::CoolingDown)
        );
        assert_eq!(cooldown.cached("r1", at(NOW + 2.0 * TICK)), None);
        assert_eq!(
            policy.tick(at(NOW + 2.0 * TICK), false, Some(&due), &cooldown),
            refresh()
        );
        // A different refresh token is not held back.
        assert_eq!(cooldown.cached("r2", at(NOW)), None);
        cooldown.clear();
        assert_eq!(cooldown.cached("r1", at(NOW)), None);
    }

    #[test]
    fn reads_refresh_within_the_ninety_second_margin() {
        let policy = RefreshPolicy::default();
        let expires_at = |ms: f64| (NOW + ms) / 1000.0;
        assert!(!policy.needs_refresh(secs(expires_at(90_000.0)), at(NOW)));
        assert!(policy.needs_refresh(secs(expires_at(89_999.0)), at(NOW)));
        assert!(policy.needs_refresh(secs(expires_at(-1.0)), at(NOW)));
    }

    #[test]
    fn back_off_doubles_from_200_ms() {
        let delays: Vec<u32> = (0..8).map(RefreshPolicy::retry_delay_ms).collect();
        assert_eq!(delays, [0, 200, 400, 800, 1600, 3200, 6400, 12800]);
        assert_eq!(RefreshPolicy::retry_delay_ms(40), u32::MAX);
    }

    #[test]
    fn retries_stop_before_thirty_seconds_from_the_first_attempt() {
        // Instant failures: attempts start at 0, 200, 600, 1400, … ms; the attempt at 25 400 ms
        // would be followed by one at 51 000 ms, past the 30 s window, so it is the last.
        let policy = RefreshPolicy::default();
        let (mut now, mut attempt, mut waits) = (0.0, 0, Vec::new());
        while policy.should_retry(attempt, &network(), at(now), at(0.0)) {
            attempt += 1;
            let delay = RefreshPolicy::retry_delay_ms(attempt);
            waits.push(delay);
            now += f64::from(delay);
        }
        assert_eq!(waits, [200, 400, 800, 1600, 3200, 6400, 12800]);
        assert_eq!(now, 25_400.0);
        // The boundary: the next attempt must start strictly before 30 s.
        assert!(policy.should_retry(0, &network(), at(29_799.0), at(0.0)));
        assert!(!policy.should_retry(0, &network(), at(29_800.0), at(0.0)));
    }

    #[test]
    fn only_retryable_failures_are_retried() {
        let policy = RefreshPolicy::default();
        assert!(policy.should_retry(0, &network(), at(NOW), at(NOW)));
        let gateway = AuthError::RetryableFetch {
            message: "http status 502".into(),
            status: 502,
        };
        assert!(policy.should_retry(0, &gateway, at(NOW), at(NOW)));
        // A request aborted at its deadline is network trouble too.
        let timeout = AuthError::Timeout { after_ms: 30_000 };
        assert!(policy.should_retry(0, &timeout, at(NOW), at(NOW)));
        for error in [
            refused(),
            AuthError::SessionMissing,
            AuthError::Unknown {
                message: "x".into(),
            },
        ] {
            assert!(
                !policy.should_retry(0, &error, at(NOW), at(NOW)),
                "{error:?}"
            );
        }
    }

    #[test]
    fn a_shorter_tick_scales_every_duration() {
        let policy = RefreshPolicy::with_tick_ms(1000).unwrap();
        assert_eq!(policy.expiry_margin_ms(), 3000.0);
        assert_eq!(policy.failure_cooldown_ms(), 2000.0);
        assert_eq!(
            policy.expires_in_ticks(secs((NOW + 3999.0) / 1000.0), at(NOW)),
            3.0
        );
        assert!(policy.should_retry(1, &network(), at(599.0), at(0.0)));
        assert!(!policy.should_retry(1, &network(), at(600.0), at(0.0)));
        assert_eq!(RefreshPolicy::with_tick_ms(0), None);
    }

    #[test]
    fn failed_refreshes_remove_the_session_only_once_its_token_has_expired() {
        assert!(!access_token_expired(secs((NOW + 1.0) / 1000.0), at(NOW)));
        assert!(access_token_expired(secs(NOW / 1000.0), at(NOW)));
        let valid = Some(secs((NOW + 60_000.0) / 1000.0));
        let expired = Some(secs((NOW - 1.0) / 1000.0));
        assert!(!remove_session_after_failure(&refused(), valid, at(NOW)));
        assert!(remove_session_after_failure(&refused(), expired, at(NOW)));
        assert!(remove_session_after_failure(&refused(), None, at(NOW)));
        // Network trouble never signs the user out.
        assert!(!remove_session_after_failure(&network(), expired, at(NOW)));
        let timeout = AuthError::Timeout { after_ms: 30_000 };
        assert!(!remove_session_after_failure(&timeout, expired, at(NOW)));
    }
}
