//! What one socket may broadcast: a byte budget refilled at a steady rate up to a burst (a token
//! bucket), so a socket can send a burst of messages at once but not a stream of them for long.
//! Pure state over an explicit `now`.

use std::time::Instant;

#[derive(Debug, Clone)]
pub struct ByteBudget {
    burst: u64,
    per_second: u64,
    available: u64,
    /// When `available` was last refilled.
    refilled: Instant,
}

impl ByteBudget {
    /// A full budget of `burst` bytes that refills at `per_second`.
    pub fn new(burst: usize, per_second: usize, now: Instant) -> ByteBudget {
        ByteBudget {
            burst: burst as u64,
            per_second: per_second as u64,
            available: burst as u64,
            refilled: now,
        }
    }

    /// Takes `bytes` if the budget holds them at `now`; otherwise takes nothing.
    pub fn take(&mut self, bytes: usize, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.refilled);
        let earned = u64::try_from(elapsed.as_millis())
            .unwrap_or(u64::MAX)
            .saturating_mul(self.per_second)
            / 1000;
        // Whole milliseconds only: what a partial one would earn is given up, never invented.
        if earned > 0 {
            self.available = self.available.saturating_add(earned).min(self.burst);
            self.refilled = now;
        }
        let bytes = bytes as u64;
        if bytes > self.available {
            return false;
        }
        self.available -= bytes;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_burst_passes_then_only_the_refill() {
        let start = Instant::now();
        let mut budget = ByteBudget::new(1000, 100, start);
        assert!(budget.take(600, start));
        assert!(budget.take(400, start));
        assert!(!budget.take(1, start));
        // 100 bytes a second: half a second earns 50.
        let later = start + Duration::from_millis(500);
        assert!(!budget.take(51, later));
        assert!(budget.take(50, later));
        assert!(!budget.take(1, later));
    }

    #[test]
    fn an_idle_budget_refills_to_its_burst_and_no_further() {
        let start = Instant::now();
        let mut budget = ByteBudget::new(1000, 100, start);
        assert!(budget.take(1000, start));
        let much_later = start + Duration::from_secs(3600);
        assert!(!budget.take(1001, much_later));
        assert!(budget.take(1000, much_later));
    }

    #[test]
    fn a_refused_take_costs_nothing() {
        let start = Instant::now();
        let mut budget = ByteBudget::new(100, 10, start);
        assert!(!budget.take(101, start));
        assert!(budget.take(100, start));
    }
}
