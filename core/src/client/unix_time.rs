//! The one time type the client passes around: a moment as milliseconds since the Unix epoch, the
//! `now` that `Date.now()` gives and every session, refresh and cooldown decision takes. Token
//! expiries arrive as unix seconds; [`UnixTime::from_seconds`] is the one place they are scaled.

use std::ops::Add;
use std::time::Duration;

/// A moment, in (possibly fractional) milliseconds since 1970-01-01T00:00:00Z.
///
/// ```
/// use std::time::Duration;
/// use geocache_core::UnixTime;
///
/// let now = UnixTime::from_millis(1_700_000_000_400.0);
/// let expires_at = UnixTime::from_seconds(1_700_000_090.0);
/// assert_eq!(expires_at.millis_since(now), 89_600.0);
/// assert!(now + Duration::from_secs(90) > expires_at);
/// assert_eq!(now.rounded_seconds(), 1_700_000_000.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct UnixTime {
    ms: f64,
}

impl UnixTime {
    pub const fn from_millis(ms: f64) -> Self {
        UnixTime { ms }
    }

    /// A moment given in unix seconds, as token expiries (`expires_at`, `exp`) are.
    pub fn from_seconds(seconds: f64) -> Self {
        UnixTime {
            ms: seconds * 1000.0,
        }
    }

    pub fn millis(self) -> f64 {
        self.ms
    }

    /// Unix seconds, fraction kept.
    pub fn seconds(self) -> f64 {
        self.ms / 1000.0
    }

    /// `Math.round(ms / 1000)`: whole unix seconds, halves rounded up.
    pub fn rounded_seconds(self) -> f64 {
        (self.ms / 1000.0 + 0.5).floor()
    }

    /// Milliseconds from `earlier` to `self`, negative when `self` is the earlier one.
    pub fn millis_since(self, earlier: UnixTime) -> f64 {
        self.ms - earlier.ms
    }
}

impl Add<Duration> for UnixTime {
    type Output = UnixTime;

    /// Whole milliseconds of `duration` later (the client's durations are whole milliseconds).
    fn add(self, duration: Duration) -> UnixTime {
        // Durations here are timer delays (below 2^32 ms): exact as f64.
        UnixTime {
            ms: self.ms + duration.as_millis() as f64,
        }
    }
}
