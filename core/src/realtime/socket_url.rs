//! The Realtime socket's address, derived from the project URL as supabase-js derives it.

use crate::client::http::encode_query;
use crate::ClientConfig;

use super::serializer::Vsn;

/// `ws(s)://<host>/realtime/v1/websocket?apikey=<key>&vsn=<vsn>`: the project URL with its
/// `http` scheme turned into `ws` (so `https` into `wss`).
///
/// ```
/// use geocache_core::realtime::{socket_url, Vsn};
/// use geocache_core::ClientConfig;
///
/// let config = ClientConfig::new("https://abc.supabase.co", "sb_publishable_k")?;
/// assert_eq!(
///     socket_url(&config, Vsn::V2),
///     "wss://abc.supabase.co/realtime/v1/websocket?apikey=sb_publishable_k&vsn=2.0.0"
/// );
/// # Ok::<(), geocache_core::ConfigError>(())
/// ```
pub fn socket_url(config: &ClientConfig, vsn: Vsn) -> String {
    let base = config.base_url();
    // The project URL was validated as http(s).
    let rest = base
        .strip_prefix("http")
        .expect("a project URL starts with http");
    format!(
        "ws{rest}realtime/v1/websocket?{}",
        connection_query(config, vsn)
    )
}

/// `apikey=<key>&vsn=<vsn>`: the socket's query, which realtime-js's HTTP broadcast keeps too.
pub(super) fn connection_query(config: &ClientConfig, vsn: Vsn) -> String {
    encode_query(&[
        ("apikey".to_owned(), config.key().to_owned()),
        ("vsn".to_owned(), vsn.as_str().to_owned()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_becomes_ws_and_the_key_is_encoded() {
        let config = ClientConfig::new("http://127.0.0.1:54321", "a+b/c=").unwrap();
        assert_eq!(
            socket_url(&config, Vsn::V1),
            "ws://127.0.0.1:54321/realtime/v1/websocket?apikey=a%2Bb%2Fc%3D&vsn=1.0.0"
        );
    }

    #[test]
    fn a_path_in_the_project_url_is_kept() {
        let config = ClientConfig::new("https://example.com/project/", "k").unwrap();
        assert_eq!(
            socket_url(&config, Vsn::V2),
            "wss://example.com/project/realtime/v1/websocket?apikey=k&vsn=2.0.0"
        );
    }
}
