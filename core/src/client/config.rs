//! Client configuration from (url, key), validated and derived exactly as supabase-js 2.109 does
//! (`validateSupabaseUrl` in src/lib/helpers.ts and the `SupabaseClient` constructor).

use crate::client::project_url::ProjectUrl;

/// Why `createClient(url, key)` refused its arguments. The messages are supabase-js's, verbatim,
/// because callers compare them; the offending value is kept in the variant instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("supabaseUrl is required.")]
    UrlRequired,
    #[error("Invalid supabaseUrl: Must be a valid HTTP or HTTPS URL.")]
    UrlInvalidScheme { url: String },
    #[error("Invalid supabaseUrl: Provided URL is malformed.")]
    UrlMalformed { url: String },
    #[error("supabaseKey is required.")]
    KeyRequired,
}

impl ConfigError {
    /// Stable machine-readable code, the `code` property of the JS error.
    pub fn code(&self) -> &'static str {
        match self {
            ConfigError::UrlRequired => "url_required",
            ConfigError::UrlInvalidScheme { .. } => "url_invalid_scheme",
            ConfigError::UrlMalformed { .. } => "url_malformed",
            ConfigError::KeyRequired => "key_required",
        }
    }
}

/// The validated project URL and key plus everything derived from them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    base_url: ProjectUrl,
    rest_url: String,
    auth_url: String,
    key: String,
    storage_key: String,
    client_info: String,
}

impl ClientConfig {
    /// Validates in supabase-js's order: URL present, http(s) scheme, parseable, then key present.
    ///
    /// ```
    /// use geocache_core::{ClientConfig, ConfigError};
    ///
    /// let config = ClientConfig::new("https://abc.supabase.co", "sb_publishable_key")?;
    /// assert_eq!(config.rest_url(), "https://abc.supabase.co/rest/v1");
    /// assert_eq!(config.auth_url(), "https://abc.supabase.co/auth/v1");
    /// assert_eq!(config.storage_key(), "sb-abc-auth-token");
    ///
    /// assert_eq!(ClientConfig::new("", "key"), Err(ConfigError::UrlRequired));
    /// # Ok::<(), ConfigError>(())
    /// ```
    pub fn new(supabase_url: &str, supabase_key: &str) -> Result<Self, ConfigError> {
        let base_url = validate_supabase_url(supabase_url)?;
        if supabase_key.is_empty() {
            return Err(ConfigError::KeyRequired);
        }
        let rest_url = base_url.join("rest/v1");
        let auth_url = base_url.join("auth/v1");
        let first_label = base_url
            .hostname()
            .split('.')
            .next()
            .expect("split always yields a first item");
        let storage_key = format!("sb-{first_label}-auth-token");
        Ok(ClientConfig {
            base_url,
            rest_url,
            auth_url,
            key: supabase_key.to_owned(),
            storage_key,
            client_info: client_info(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
        })
    }

    /// Replaces the `X-Client-Info` value (the bindings send their own package name and version).
    pub fn with_client_info(mut self, client_info: impl Into<String>) -> Self {
        self.client_info = client_info.into();
        self
    }

    /// The project URL with a trailing slash, as `new URL(ensureTrailingSlash(url))` gives it.
    pub fn base_url(&self) -> String {
        self.base_url.href()
    }

    /// `new URL('rest/v1', base).href`, e.g. `https://x.supabase.co/rest/v1`.
    pub fn rest_url(&self) -> &str {
        &self.rest_url
    }

    /// `new URL('auth/v1', base).href`, e.g. `https://x.supabase.co/auth/v1`.
    pub fn auth_url(&self) -> &str {
        &self.auth_url
    }

    /// The anon (or other) API key: sent as `apikey`, and as the bearer while no user is signed in.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// `sb-<first label of the hostname>-auth-token`, where supabase-js persists the session.
    pub fn storage_key(&self) -> &str {
        &self.storage_key
    }

    /// The `X-Client-Info` header value.
    pub fn client_info(&self) -> &str {
        &self.client_info
    }
}

/// `<name>/<version>; runtime=web`, the shape of supabase-js's browser `X-Client-Info`.
pub fn client_info(name: &str, version: &str) -> String {
    format!("{name}/{version}; runtime=web")
}

fn validate_supabase_url(supabase_url: &str) -> Result<ProjectUrl, ConfigError> {
    let trimmed = supabase_url.trim_matches(is_js_whitespace);
    if trimmed.is_empty() {
        return Err(ConfigError::UrlRequired);
    }
    if !has_http_scheme(trimmed) {
        return Err(ConfigError::UrlInvalidScheme {
            url: supabase_url.to_owned(),
        });
    }
    let with_slash = if trimmed.ends_with('/') {
        trimmed.to_owned()
    } else {
        format!("{trimmed}/")
    };
    ProjectUrl::parse(&with_slash).ok_or_else(|| ConfigError::UrlMalformed {
        url: supabase_url.to_owned(),
    })
}

/// `/^https?:\/\//i`
fn has_http_scheme(url: &str) -> bool {
    let bytes = url.as_bytes();
    let starts_with = |prefix: &[u8]| {
        bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
    };
    starts_with(b"http://") || starts_with(b"https://")
}

/// What `String.prototype.trim` strips: ECMAScript WhiteSpace and LineTerminator. It differs from
/// Rust's `char::is_whitespace` in two places: U+FEFF is stripped, U+0085 is not.
pub(crate) fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'
            | '\u{000A}'
            | '\u{000B}'
            | '\u{000C}'
            | '\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "anon-key";

    fn config(url: &str) -> ClientConfig {
        ClientConfig::new(url, KEY).expect("valid config")
    }

    #[test]
    fn missing_or_blank_url_is_required() {
        for url in ["", " ", "\t\n", "\u{FEFF}\u{3000}"] {
            assert_eq!(
                ClientConfig::new(url, KEY),
                Err(ConfigError::UrlRequired),
                "{url:?}"
            );
        }
    }

    #[test]
    fn non_http_schemes_are_refused() {
        for url in [
            "ftp://x.supabase.co",
            "x.supabase.co",
            "http:/x",
            "ws://x",
            "\u{0085}http://x",
        ] {
            assert_eq!(
                ClientConfig::new(url, KEY),
                Err(ConfigError::UrlInvalidScheme { url: url.into() }),
                "{url:?}"
            );
        }
    }

    #[test]
    fn scheme_check_ignores_case_and_surrounding_whitespace() {
        assert_eq!(
            config("HTTPS://X.supabase.co").rest_url(),
            "https://x.supabase.co/rest/v1"
        );
        assert_eq!(config("  hTTp://h \n").rest_url(), "http://h/rest/v1");
    }

    #[test]
    fn unparseable_urls_are_malformed() {
        for url in [
            "http://",
            "https://exa mple.com",
            "http://[::1",
            "http://h:99999",
        ] {
            assert_eq!(
                ClientConfig::new(url, KEY),
                Err(ConfigError::UrlMalformed { url: url.into() }),
                "{url:?}"
            );
        }
    }

    #[test]
    fn key_is_checked_after_the_url() {
        assert_eq!(ClientConfig::new("", ""), Err(ConfigError::UrlRequired));
        assert_eq!(
            ClientConfig::new("https://x.supabase.co", ""),
            Err(ConfigError::KeyRequired)
        );
        // supabase-js only checks falsiness: a blank key is accepted.
        assert_eq!(config("https://x.supabase.co").key(), KEY);
        assert!(ClientConfig::new("https://x.supabase.co", " ").is_ok());
    }

    #[test]
    fn error_messages_and_codes_are_supabase_js_ones() {
        let cases = [
            (
                ConfigError::UrlRequired,
                "supabaseUrl is required.",
                "url_required",
            ),
            (
                ConfigError::UrlInvalidScheme { url: "x".into() },
                "Invalid supabaseUrl: Must be a valid HTTP or HTTPS URL.",
                "url_invalid_scheme",
            ),
            (
                ConfigError::UrlMalformed { url: "x".into() },
                "Invalid supabaseUrl: Provided URL is malformed.",
                "url_malformed",
            ),
            (
                ConfigError::KeyRequired,
                "supabaseKey is required.",
                "key_required",
            ),
        ];
        for (error, message, code) in cases {
            assert_eq!(error.to_string(), message);
            assert_eq!(error.code(), code);
        }
    }

    #[test]
    fn service_urls_are_derived_like_supabase_js() {
        let cases = [
            (
                "https://x.supabase.co",
                "https://x.supabase.co/rest/v1",
                "https://x.supabase.co/auth/v1",
            ),
            (
                "https://x.supabase.co/",
                "https://x.supabase.co/rest/v1",
                "https://x.supabase.co/auth/v1",
            ),
            (
                "http://127.0.0.1:54321",
                "http://127.0.0.1:54321/rest/v1",
                "http://127.0.0.1:54321/auth/v1",
            ),
            (
                "https://h/prefix",
                "https://h/prefix/rest/v1",
                "https://h/prefix/auth/v1",
            ),
            (
                "https://h/a/b/",
                "https://h/a/b/rest/v1",
                "https://h/a/b/auth/v1",
            ),
            // The slash is appended to the whole string, so a query swallows it and is then dropped.
            ("https://h?x=1", "https://h/rest/v1", "https://h/auth/v1"),
            ("https://h:443", "https://h/rest/v1", "https://h/auth/v1"),
        ];
        for (url, rest, auth) in cases {
            let config = config(url);
            assert_eq!(config.rest_url(), rest, "{url}");
            assert_eq!(config.auth_url(), auth, "{url}");
        }
        assert_eq!(config("https://h/prefix").base_url(), "https://h/prefix/");
    }

    #[test]
    fn storage_key_uses_the_first_hostname_label() {
        let cases = [
            ("https://abcd.supabase.co", "sb-abcd-auth-token"),
            ("http://127.0.0.1:54321", "sb-127-auth-token"),
            ("http://localhost:54321", "sb-localhost-auth-token"),
            ("http://[::1]:54321", "sb-[::1]-auth-token"),
            ("https://ABC.Example.com", "sb-abc-auth-token"),
        ];
        for (url, key) in cases {
            assert_eq!(config(url).storage_key(), key, "{url}");
        }
    }

    #[test]
    fn client_info_defaults_to_this_crate_and_can_be_replaced() {
        let config = config("https://h");
        assert_eq!(
            config.client_info(),
            format!("geocache-core/{}; runtime=web", env!("CARGO_PKG_VERSION"))
        );
        let config = config.with_client_info(client_info("geocache-client", "9.8.7"));
        assert_eq!(config.client_info(), "geocache-client/9.8.7; runtime=web");
    }
}
