//! realtime-js's timer numbers, as durations from an explicit `now`.

/// A heartbeat every 25 s; one unanswered by the next is a dead socket.
pub const HEARTBEAT_INTERVAL_MS: u32 = 25_000;
/// How long a join, a leave or an acknowledged broadcast waits for its reply.
pub const PUSH_TIMEOUT_MS: u32 = 10_000;
/// After the last channel is removed, the socket stays open this long for a new one.
pub const IDLE_DISCONNECT_MS: u32 = 50_000;
/// Close code and reason for a socket whose heartbeat went unanswered.
pub const HEARTBEAT_TIMEOUT_CLOSE: (u16, &str) = (1000, "heartbeat timeout");

/// The wait before reconnect attempt `tries` (from 1): 1, 2, 5, then 10 s.
///
/// ```
/// use geocache_core::realtime::timing::reconnect_after_ms;
/// assert_eq!((1..=6).map(reconnect_after_ms).collect::<Vec<_>>(),
///            [1_000, 2_000, 5_000, 10_000, 10_000, 10_000]);
/// ```
pub fn reconnect_after_ms(tries: u32) -> u32 {
    match tries {
        0 | 1 => 1_000,
        2 => 2_000,
        3 => 5_000,
        _ => 10_000,
    }
}

/// The wait before rejoin attempt `tries` (from 1): 1, 2, 5, then 10 s.
pub fn rejoin_after_ms(tries: u32) -> u32 {
    reconnect_after_ms(tries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejoins_back_off_as_realtime_js() {
        let delays: Vec<u32> = (1..=5).map(rejoin_after_ms).collect();
        assert_eq!(delays, [1_000, 2_000, 5_000, 10_000, 10_000]);
    }
}
