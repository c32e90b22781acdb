//! Who sent a request, for the per-address limits (the auth rate limits and the logbook's sign
//! limit).
//!
//! The address is the socket's peer. Only when that peer is a proxy the emulator was told to trust
//! (`--trusted-proxy`) does the address come from the request's `cf-connecting-ip` header instead,
//! the header hosted Supabase's proxy (Cloudflare) sets and the sign-limit migration reads: a
//! header from anyone else is whatever the client wrote there.

use axum::http::HeaderMap;
use std::net::IpAddr;
use std::sync::Arc;

mod extract;

/// Peers whose `cf-connecting-ip` header names the client (`--trusted-proxy`); a service whose
/// routes read [`ClientAddress`] holds them.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies(pub Arc<Vec<IpAddr>>);

/// The header a trusted proxy names the client in (the migration's `client_address_header`).
pub const CLIENT_ADDRESS_HEADER: &str = "cf-connecting-ip";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAddress {
    /// No socket: the app was called in-process (the emulator's own tests), not over the network.
    InProcess,
    /// The peer, or the address a trusted proxy named.
    Known(IpAddr),
    /// A trusted proxy sent no usable address; such requests share one budget, as in the
    /// migration.
    Unknown,
}

impl ClientAddress {
    /// Resolves the address of a request from `peer` with `headers`.
    pub fn resolve(peer: Option<IpAddr>, headers: &HeaderMap, trusted: &[IpAddr]) -> Self {
        let Some(peer) = peer else {
            return ClientAddress::InProcess;
        };
        if !trusted.contains(&canonical(peer)) {
            return ClientAddress::Known(canonical(peer));
        }
        headers
            .get(CLIENT_ADDRESS_HEADER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<IpAddr>().ok())
            .map_or(ClientAddress::Unknown, ClientAddress::Known)
    }

    /// The counting key: the address itself, an IPv6 address's /64 network (one subscriber can
    /// pick any address in it; an IPv4 address written as IPv6 stays whole), or a shared key.
    pub fn key(&self) -> String {
        match self {
            ClientAddress::InProcess => "in-process".to_owned(),
            ClientAddress::Unknown => "unknown".to_owned(),
            ClientAddress::Known(IpAddr::V6(ip)) if ip.to_ipv4_mapped().is_none() => {
                let segments = ip.segments();
                format!(
                    "{:x}:{:x}:{:x}:{:x}::/64",
                    segments[0], segments[1], segments[2], segments[3]
                )
            }
            ClientAddress::Known(ip) => ip.to_string(),
        }
    }

    /// Whether the request comes from this machine (loopback peer, no proxy) or from inside the
    /// process.
    pub fn is_local(&self) -> bool {
        match self {
            ClientAddress::InProcess => true,
            ClientAddress::Known(ip) => ip.is_loopback(),
            ClientAddress::Unknown => false,
        }
    }
}

/// An IPv4 peer on a dual-stack socket shows as `::ffff:a.b.c.d`; compare it as IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn forwarded(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(CLIENT_ADDRESS_HEADER, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn the_header_counts_only_from_a_trusted_proxy() {
        let trusted = [ip("10.0.0.1")];
        let headers = forwarded(" 203.0.113.5 ");
        assert_eq!(
            ClientAddress::resolve(Some(ip("198.51.100.7")), &headers, &trusted),
            ClientAddress::Known(ip("198.51.100.7"))
        );
        assert_eq!(
            ClientAddress::resolve(Some(ip("10.0.0.1")), &headers, &trusted),
            ClientAddress::Known(ip("203.0.113.5"))
        );
        assert_eq!(
            ClientAddress::resolve(Some(ip("::ffff:10.0.0.1")), &headers, &trusted),
            ClientAddress::Known(ip("203.0.113.5"))
        );
        for missing in [HeaderMap::new(), forwarded("not an address")] {
            assert_eq!(
                ClientAddress::resolve(Some(ip("10.0.0.1")), &missing, &trusted),
                ClientAddress::Unknown
            );
        }
        assert_eq!(
            ClientAddress::resolve(None, &headers, &trusted),
            ClientAddress::InProcess
        );
    }

    #[test]
    fn keys_group_an_ipv6_subscriber_by_its_64() {
        let key = |text: &str| ClientAddress::Known(ip(text)).key();
        assert_eq!(key("203.0.113.5"), "203.0.113.5");
        assert_eq!(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:bbbb::2"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:203.0.113.5"), "::ffff:203.0.113.5");
        assert_ne!(key("::ffff:203.0.113.5"), key("::ffff:203.0.113.6"));
    }

    #[test]
    fn only_loopback_and_in_process_callers_are_local() {
        assert!(ClientAddress::Known(ip("127.0.0.1")).is_local());
        assert!(ClientAddress::Known(ip("::1")).is_local());
        assert!(ClientAddress::InProcess.is_local());
        assert!(!ClientAddress::Known(ip("203.0.113.5")).is_local());
        assert!(!ClientAddress::Unknown.is_local());
    }
}
