//! The headers every request to the project starts with, for every service, in one place:
//! `x-client-info`, `apikey: <key>` always, and `authorization: Bearer <session token ‖ key>`, as
//! supabase-js's `fetchWithAuth` and auth-js build them. The one exception is Edge Functions: a
//! new-format key (`sb_publishable_…`, `sb_secret_…`) is not a JWT, so without a session a function
//! call goes out with no `authorization` at all.

use crate::client::config::ClientConfig;

/// What kind of API key the client was created with; only its prefix is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFormat {
    /// A legacy `anon` / `service_role` JWT, or anything else that is not an `sb_` key.
    Legacy,
    /// `sb_publishable_…`: the browser key (role `anon`, `authenticated` with a user JWT).
    Publishable,
    /// `sb_secret_…`: the server key (role `service_role`); hosted projects refuse it from a browser.
    Secret,
    /// Another `sb_` key (`sb_temp_…`, or a subtype newer than this client). Sent like a legacy
    /// key: the `Bearer` fallback applies to it.
    OtherSb,
}

impl KeyFormat {
    pub fn of(key: &str) -> KeyFormat {
        if key.starts_with("sb_publishable_") {
            KeyFormat::Publishable
        } else if key.starts_with("sb_secret_") {
            KeyFormat::Secret
        } else if key.starts_with("sb_") {
            KeyFormat::OtherSb
        } else {
            KeyFormat::Legacy
        }
    }

    /// Publishable and secret keys: the ones functions get no `Bearer` fallback for.
    pub fn is_new_format(self) -> bool {
        matches!(self, KeyFormat::Publishable | KeyFormat::Secret)
    }
}

/// Which part of the project a request goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    /// PostgREST (`/rest/v1`); Storage and Realtime's HTTP calls follow the same rule.
    Rest,
    /// The auth server (`/auth/v1`): the key as bearer unless a call names the user's JWT.
    Auth,
    /// Edge Functions (`/functions/v1`).
    Functions,
}

/// `x-client-info`, `apikey` and, unless a function call has neither a session nor a key that
/// may be a bearer, `authorization: Bearer <session_token or key>`.
pub fn base_headers(
    config: &ClientConfig,
    service: Service,
    session_token: Option<&str>,
) -> Vec<(String, String)> {
    let key = config.key();
    let mut headers = vec![
        ("x-client-info".to_owned(), config.client_info().to_owned()),
        ("apikey".to_owned(), key.to_owned()),
    ];
    let bearer = match (service, session_token) {
        (_, Some(token)) => Some(token),
        (Service::Functions, None) if KeyFormat::of(key).is_new_format() => None,
        (_, None) => Some(key),
    };
    if let Some(bearer) = bearer {
        headers.push(("authorization".to_owned(), format!("Bearer {bearer}")));
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEGACY: &str = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.sig";
    const PUBLISHABLE: &str = "sb_publishable_abc123";
    const SECRET: &str = "sb_secret_abc123";
    const TEMP: &str = "sb_temp_abc123";
    const KEYS: [&str; 4] = [LEGACY, PUBLISHABLE, SECRET, TEMP];

    fn headers(key: &str, service: Service, session_token: Option<&str>) -> Vec<(String, String)> {
        let config = ClientConfig::new("https://x.supabase.co", key)
            .unwrap()
            .with_client_info("info");
        base_headers(&config, service, session_token)
    }

    fn authorization(headers: &[(String, String)]) -> Option<&str> {
        headers
            .iter()
            .find(|(name, _)| name == "authorization")
            .map(|(_, value)| value.as_str())
    }

    #[test]
    fn keys_are_told_apart_by_prefix() {
        assert_eq!(KeyFormat::of(LEGACY), KeyFormat::Legacy);
        assert_eq!(KeyFormat::of(PUBLISHABLE), KeyFormat::Publishable);
        assert_eq!(KeyFormat::of(SECRET), KeyFormat::Secret);
        assert_eq!(KeyFormat::of(TEMP), KeyFormat::OtherSb);
        assert_eq!(KeyFormat::of("sb_"), KeyFormat::OtherSb);
        assert_eq!(KeyFormat::of("SB_secret_x"), KeyFormat::Legacy);
        assert_eq!(KeyFormat::of("sb_publishable"), KeyFormat::OtherSb);
        let new_format = KEYS.map(|key| KeyFormat::of(key).is_new_format());
        assert_eq!(new_format, [false, true, true, false]);
    }

    #[test]
    fn every_key_is_the_apikey_and_the_bearer_without_a_session() {
        for service in [Service::Rest, Service::Auth] {
            for key in KEYS {
                let headers = headers(key, service, None);
                let expected = [
                    ("x-client-info", "info".to_owned()),
                    ("apikey", key.to_owned()),
                    ("authorization", format!("Bearer {key}")),
                ]
                .map(|(name, value)| (name.to_owned(), value));
                assert_eq!(headers, expected, "{service:?} {key}");
            }
        }
    }

    #[test]
    fn a_session_token_is_the_bearer_and_the_key_stays_the_apikey() {
        for service in [Service::Rest, Service::Auth, Service::Functions] {
            for key in KEYS {
                let headers = headers(key, service, Some("user.jwt"));
                assert_eq!(headers[1], ("apikey".to_owned(), key.to_owned()));
                assert_eq!(authorization(&headers), Some("Bearer user.jwt"), "{key}");
            }
        }
    }

    #[test]
    fn functions_get_no_bearer_for_a_new_format_key_without_a_session() {
        let bearers = KEYS
            .map(|key| authorization(&headers(key, Service::Functions, None)).map(str::to_owned));
        assert_eq!(
            bearers,
            [
                Some(format!("Bearer {LEGACY}")),
                None,
                None,
                Some(format!("Bearer {TEMP}")),
            ]
        );
        let headers = headers(SECRET, Service::Functions, None);
        assert_eq!(headers[1], ("apikey".to_owned(), SECRET.to_owned()));
    }
}
