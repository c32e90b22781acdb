//! The validated configuration every exported client starts from, identifying this package in
//! `X-Client-Info`.

use geocache_core::client::config::client_info;
use geocache_core::{ClientConfig, ConfigError};

/// Core's checks of `url` and `key` (supabase-js's messages), with this package's client info.
pub fn client_config(url: &str, key: &str) -> Result<ClientConfig, ConfigError> {
    Ok(ClientConfig::new(url, key)?.with_client_info(client_info(
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION"),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_identify_this_package() {
        let config = client_config("http://127.0.0.1:54321", "k").expect("valid config");
        assert_eq!(
            config.client_info(),
            format!("geocache-client/{}; runtime=web", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(config.rest_url(), "http://127.0.0.1:54321/rest/v1");
    }

    #[test]
    fn a_missing_url_or_key_is_core_s_config_error() {
        assert!(matches!(
            client_config("", "k"),
            Err(ConfigError::UrlRequired)
        ));
        assert!(matches!(
            client_config("http://h", ""),
            Err(ConfigError::KeyRequired)
        ));
    }
}
