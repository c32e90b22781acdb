//! The emulator's notion of "now". The server reads the system clock; tests use a manual clock
//! they move forward, so expiries (challenges, access tokens, rate-limit windows) and TOTP steps
//! can be tested without sleeping.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

const MICROS_PER_SECOND: i64 = 1_000_000;

#[derive(Clone, Debug, Default)]
pub struct Clock {
    manual: Option<Arc<AtomicI64>>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Clock {
        Clock::default()
    }

    /// Microseconds since the Unix epoch, UTC.
    pub fn now_micros(&self) -> i64 {
        match &self.manual {
            Some(now) => now.load(Ordering::SeqCst),
            None => crate::timestamp::now_micros(),
        }
    }

    /// Whole seconds since the Unix epoch (what JWT and TOTP times use).
    pub fn now_seconds(&self) -> i64 {
        self.now_micros().div_euclid(MICROS_PER_SECOND)
    }
}

/// A clock that stands still until moved; hand out [`ManualClock::clock`] to the app.
#[derive(Clone, Debug)]
pub struct ManualClock {
    now: Arc<AtomicI64>,
}

impl ManualClock {
    pub fn starting_at_micros(micros: i64) -> ManualClock {
        ManualClock {
            now: Arc::new(AtomicI64::new(micros)),
        }
    }

    /// Starts at the current system time.
    pub fn starting_now() -> ManualClock {
        ManualClock::starting_at_micros(crate::timestamp::now_micros())
    }

    pub fn clock(&self) -> Clock {
        Clock {
            manual: Some(Arc::clone(&self.now)),
        }
    }

    pub fn advance_seconds(&self, seconds: i64) {
        self.now
            .fetch_add(seconds * MICROS_PER_SECOND, Ordering::SeqCst);
    }

    pub fn advance_micros(&self, micros: i64) {
        self.now.fetch_add(micros, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_told() {
        let manual = ManualClock::starting_at_micros(1_700_000_000_500_000);
        let clock = manual.clock();
        assert_eq!(clock.now_micros(), 1_700_000_000_500_000);
        assert_eq!(clock.now_seconds(), 1_700_000_000);
        manual.advance_seconds(30);
        manual.advance_micros(600_000);
        assert_eq!(clock.now_seconds(), 1_700_000_031);
    }

    #[test]
    fn the_system_clock_follows_real_time() {
        let before = crate::timestamp::now_micros();
        let now = Clock::system().now_micros();
        assert!(now >= before);
    }
}
