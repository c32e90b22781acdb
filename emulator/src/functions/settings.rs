//! Which functions exist, whether each verifies JWTs, and where the developer's function server
//! listens.
//!
//! A function exists as a hosted project's deployed function does: `supabase functions deploy`
//! deploys every `supabase/functions/<name>/` directory, and `[functions.<name>]` in
//! `supabase/config.toml` names one too (`enabled = false` takes it out). The emulator reads both
//! beside the `--config` file. Existence is never asked of the function server: a function that
//! answers 404 itself is passed through as hosted Edge Functions pass it, not turned into the
//! platform's `NOT_FOUND`.

use axum::http::uri::{Authority, Scheme, Uri};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One function's settings from `[functions.<name>]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionSettings {
    /// `enabled` (default true): false makes the function answer as one that does not exist.
    pub enabled: bool,
    /// `verify_jwt` (default true, as on hosted projects): the request needs a JWT signed with
    /// the project's secret as its bearer.
    pub verify_jwt: bool,
}

impl Default for FunctionSettings {
    fn default() -> Self {
        FunctionSettings {
            enabled: true,
            verify_jwt: true,
        }
    }
}

/// Where function calls are sent: `http://host:port`, optionally with a path prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionServer {
    pub authority: Authority,
    /// Without a trailing slash; empty for the root.
    pub prefix: String,
}

impl FunctionServer {
    /// Parses `--functions-url`: an absolute `http://` URL without query or fragment (the
    /// emulator speaks plain HTTP/1.1 to a server on the developer's machine).
    pub fn parse(text: &str) -> Result<FunctionServer, String> {
        let uri: Uri = text
            .parse()
            .map_err(|error| format!("not a URL ({error}): {text}"))?;
        if uri.scheme() != Some(&Scheme::HTTP) {
            return Err(format!("must be an http:// URL: {text}"));
        }
        let authority = uri
            .authority()
            .cloned()
            .ok_or_else(|| format!("has no host: {text}"))?;
        if authority.as_str().contains('@') {
            return Err(format!("must not hold credentials: {text}"));
        }
        if uri.query().is_some() || text.contains('#') {
            return Err(format!("must not have a query or fragment: {text}"));
        }
        Ok(FunctionServer {
            authority,
            prefix: uri.path().trim_end_matches('/').to_owned(),
        })
    }

    /// The `host:port` to connect to (port 80 when the URL names none).
    pub fn address(&self) -> (String, u16) {
        let host = self.authority.host();
        let host = host
            .strip_prefix('[')
            .and_then(|inner| inner.strip_suffix(']'))
            .unwrap_or(host);
        (host.to_owned(), self.authority.port_u16().unwrap_or(80))
    }

    /// The URL as given back to people (log lines, error messages).
    pub fn url(&self) -> String {
        format!("http://{}{}", self.authority, self.prefix)
    }
}

/// Everything `/functions/v1` needs to know.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FunctionsSettings {
    pub server: Option<FunctionServer>,
    /// `[functions.<name>]` of the config file.
    pub listed: BTreeMap<String, FunctionSettings>,
    /// `supabase/functions/` beside the config file, whose subdirectories are functions.
    pub directory: Option<PathBuf>,
}

impl FunctionsSettings {
    /// The settings of function `name` if it exists; `name` must already be a valid slug (so it
    /// cannot climb out of the functions directory).
    pub fn lookup(&self, name: &str) -> Option<FunctionSettings> {
        match self.listed.get(name) {
            Some(settings) => settings.enabled.then_some(*settings),
            None => self
                .directory
                .as_ref()
                .is_some_and(|directory| directory.join(name).is_dir())
                .then(FunctionSettings::default),
        }
    }
}

/// A function's name as the Supabase CLI allows it: a letter, then letters, digits, `-`, `_`.
pub fn is_function_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_server_urls_are_plain_http() {
        let server = FunctionServer::parse("http://127.0.0.1:8000").unwrap();
        assert_eq!(server.address(), ("127.0.0.1".to_owned(), 8000));
        assert_eq!(server.prefix, "");
        let prefixed = FunctionServer::parse("http://localhost/fns/").unwrap();
        assert_eq!(prefixed.address(), ("localhost".to_owned(), 80));
        assert_eq!(prefixed.prefix, "/fns");
        assert_eq!(prefixed.url(), "http://localhost/fns");
        let v6 = FunctionServer::parse("http://[::1]:9").unwrap();
        assert_eq!(v6.address(), ("::1".to_owned(), 9));
        for bad in [
            "https://x:1",
            "127.0.0.1:8000",
            "/relative",
            "http://u:p@x:1",
            "http://x:1/?a=b",
            "http://x:1/#f",
            "",
        ] {
            assert!(FunctionServer::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn functions_exist_when_listed_or_in_the_functions_directory() {
        let directory = tempfile::tempdir().unwrap();
        std::fs::create_dir(directory.path().join("from-dir")).unwrap();
        std::fs::write(directory.path().join("a-file"), "").unwrap();
        let open = FunctionSettings {
            enabled: true,
            verify_jwt: false,
        };
        let settings = FunctionsSettings {
            server: None,
            listed: BTreeMap::from([
                ("open".to_owned(), open),
                (
                    "off".to_owned(),
                    FunctionSettings {
                        enabled: false,
                        verify_jwt: true,
                    },
                ),
                (
                    "from-dir".to_owned(),
                    FunctionSettings {
                        enabled: false,
                        verify_jwt: true,
                    },
                ),
            ]),
            directory: Some(directory.path().to_owned()),
        };
        assert_eq!(settings.lookup("open"), Some(open));
        assert_eq!(settings.lookup("off"), None);
        // The config file's `enabled = false` wins over the directory.
        assert_eq!(settings.lookup("from-dir"), None);
        assert_eq!(settings.lookup("a-file"), None);
        assert_eq!(settings.lookup("missing"), None);
        std::fs::create_dir(directory.path().join("new")).unwrap();
        assert_eq!(settings.lookup("new"), Some(FunctionSettings::default()));
        assert!(FunctionSettings::default().verify_jwt);
    }

    #[test]
    fn names_are_cli_slugs() {
        for good in ["echo", "notify-owner", "a_1"] {
            assert!(is_function_name(good), "{good}");
        }
        for bad in ["", "1a", "_shared", "-a", "a.b", "..", "a%2F", "é"] {
            assert!(!is_function_name(bad), "{bad}");
        }
    }
}
