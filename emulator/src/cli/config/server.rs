//! The flags of the server in front of every service: the body limit the gateway enforces, how
//! connections are treated, and which proxies may name the client.

use crate::gateway::DEFAULT_MAX_BODY_BYTES;
use crate::http::pace::BodyPace;
use crate::http::server::{
    ConnectionLimits, DEFAULT_BODY_GRACE_SECONDS, DEFAULT_BODY_MIN_RATE,
    DEFAULT_HEADER_READ_TIMEOUT_SECONDS, DEFAULT_IDLE_TIMEOUT_SECONDS, DEFAULT_MAX_CONNECTIONS,
};
use clap::builder::TypedValueParser;
use clap::Args;
use std::net::IpAddr;
use std::time::Duration;

#[derive(Debug, Clone, Args)]
pub struct ServerFlags {
    /// Request bodies larger than this many bytes are refused with 413, as the API gateway does.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_MAX_BODY_BYTES",
        default_value_t = DEFAULT_MAX_BODY_BYTES,
        value_parser = clap::value_parser!(u64).range(1..=1 << 32).map(|bytes| bytes as usize)
    )]
    pub max_body_bytes: usize,

    /// Seconds a client has to send a request's headers, from the start of the connection or the
    /// end of the previous response; a connection that trickles them is closed.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_HEADER_READ_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = DEFAULT_HEADER_READ_TIMEOUT_SECONDS,
        value_parser = clap::value_parser!(u64).range(1..=30)
    )]
    pub header_read_timeout: u64,

    /// Seconds without a byte in either direction, while a request is received or answered,
    /// after which the connection is asked to close (an exchange in flight may finish) and, after
    /// twice as long, dropped: an upload or a download that stalls. The wait for the next request
    /// on a kept-alive connection is bounded by --header-read-timeout.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_IDLE_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = DEFAULT_IDLE_TIMEOUT_SECONDS,
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub idle_timeout: u64,

    /// Seconds a request body may take before it must keep up --body-min-rate, counted from when
    /// the server starts reading it; a body that falls behind is refused (408) and its
    /// connection closed, so a client trickling bytes cannot hold a connection.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_BODY_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = DEFAULT_BODY_GRACE_SECONDS,
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub body_timeout: u64,

    /// Bytes a second a request body must average once --body-timeout is over: it may take
    /// --body-timeout plus one second for every this many bytes received.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_BODY_MIN_RATE",
        value_name = "BYTES",
        default_value_t = DEFAULT_BODY_MIN_RATE,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub body_min_rate: u64,

    /// Connections served at once; more wait in the listen backlog until one closes.
    #[arg(
        long,
        env = "GEOCACHE_EMULATOR_MAX_CONNECTIONS",
        value_name = "N",
        default_value_t = DEFAULT_MAX_CONNECTIONS,
        value_parser = clap::value_parser!(u32).range(1..=65_536).map(|n| n as usize)
    )]
    pub max_connections: usize,

    /// A proxy in front of the emulator (repeatable): requests from this address are counted
    /// against the client its `cf-connecting-ip` header names. Without it every address is the
    /// socket's peer, and the header is ignored.
    #[arg(long, value_name = "ADDR")]
    pub trusted_proxy: Vec<IpAddr>,
}

impl ServerFlags {
    /// How the listener treats connections.
    pub fn connection_limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            header_read_timeout: Duration::from_secs(self.header_read_timeout),
            idle_timeout: Duration::from_secs(self.idle_timeout),
            max_connections: self.max_connections,
            body_pace: BodyPace {
                grace: Duration::from_secs(self.body_timeout),
                min_rate: self.body_min_rate,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::config::flag_groups::parse;

    #[test]
    fn connection_limits_come_from_flags_within_bounds() {
        let flags: ServerFlags = parse(&[
            "--header-read-timeout",
            "2",
            "--idle-timeout",
            "3",
            "--max-connections",
            "4",
            "--body-timeout",
            "5",
            "--body-min-rate",
            "6",
        ])
        .unwrap();
        assert_eq!(
            flags.connection_limits(),
            ConnectionLimits {
                header_read_timeout: Duration::from_secs(2),
                idle_timeout: Duration::from_secs(3),
                max_connections: 4,
                body_pace: BodyPace {
                    grace: Duration::from_secs(5),
                    min_rate: 6,
                },
            }
        );
        // A trickled head never holds a connection longer than 30 s.
        for (flag, value) in [
            ("--header-read-timeout", "0"),
            ("--header-read-timeout", "31"),
            ("--idle-timeout", "0"),
            ("--max-connections", "0"),
            ("--body-timeout", "0"),
            ("--body-min-rate", "0"),
        ] {
            assert!(
                parse::<ServerFlags>(&[flag, value]).is_err(),
                "{flag} {value}"
            );
        }
    }

    #[test]
    fn trusted_proxies_are_addresses() {
        let flags: ServerFlags =
            parse(&["--trusted-proxy", "10.0.0.1", "--trusted-proxy", "::1"]).unwrap();
        assert_eq!(
            flags.trusted_proxy,
            vec![
                "10.0.0.1".parse::<IpAddr>().unwrap(),
                "::1".parse().unwrap()
            ]
        );
        assert!(parse::<ServerFlags>(&["--trusted-proxy", "proxy"]).is_err());
    }
}
