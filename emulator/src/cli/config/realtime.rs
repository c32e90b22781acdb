//! The flags of `/realtime/v1`: how many sockets and channels, and how long a socket may stay
//! silent.

use crate::realtime::hub::{
    RealtimeLimits, DEFAULT_MAX_CHANNELS, DEFAULT_MAX_CONNECTIONS, DEFAULT_TIMEOUT_SECONDS,
};
use clap::builder::TypedValueParser;
use clap::Args;
use std::time::Duration;

#[derive(Debug, Clone, Args)]
pub struct RealtimeFlags {
    /// Realtime sockets open at once, joined or not (hosted Free plan: 200); an upgrade beyond it
    /// is refused with 429 `ConnectionRateLimitReached: Too many connected users`.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_REALTIME_MAX_CONNECTIONS",
        value_name = "N",
        default_value_t = DEFAULT_MAX_CONNECTIONS,
        value_parser = clap::value_parser!(u32).range(1..=65_536).map(|n| n as usize)
    )]
    pub realtime_max_connections: usize,

    /// Channels one Realtime socket may join (hosted: 100); more are refused with
    /// `ChannelRateLimitReached: Too many channels`.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_REALTIME_MAX_CHANNELS",
        value_name = "N",
        default_value_t = DEFAULT_MAX_CHANNELS,
        value_parser = clap::value_parser!(u32).range(1..=10_000).map(|n| n as usize)
    )]
    pub realtime_max_channels: usize,

    /// Seconds a Realtime socket may stay silent (no heartbeat, no message) before it is closed.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_REALTIME_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = DEFAULT_TIMEOUT_SECONDS,
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub realtime_timeout: u64,
}

impl RealtimeFlags {
    /// Realtime's caps and its silent-socket timeout.
    pub fn limits(&self) -> RealtimeLimits {
        RealtimeLimits {
            max_connections: self.realtime_max_connections,
            max_channels: self.realtime_max_channels,
            timeout: Duration::from_secs(self.realtime_timeout),
            ..RealtimeLimits::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::config::flag_groups::parse;

    #[test]
    fn realtime_limits_default_to_hosted_free_plan_and_come_from_flags() {
        let flags: RealtimeFlags = parse(&[]).unwrap();
        assert_eq!(flags.limits(), RealtimeLimits::default());
        assert_eq!(
            (
                RealtimeLimits::default().max_connections,
                RealtimeLimits::default().max_channels,
                RealtimeLimits::default().timeout
            ),
            (200, 100, Duration::from_secs(60))
        );
        let flags: RealtimeFlags = parse(&[
            "--realtime-max-connections",
            "3",
            "--realtime-max-channels",
            "4",
            "--realtime-timeout",
            "5",
        ])
        .unwrap();
        let limits = flags.limits();
        assert_eq!(
            (limits.max_connections, limits.max_channels, limits.timeout),
            (3, 4, Duration::from_secs(5))
        );
        for flag in [
            "--realtime-max-connections",
            "--realtime-max-channels",
            "--realtime-timeout",
        ] {
            assert!(parse::<RealtimeFlags>(&[flag, "0"]).is_err(), "{flag}");
        }
    }
}
