//! `createClient`'s options as the npm build reads them (serde), with supabase-js's defaults for
//! the `auth` part. The page's build has no auth and reads `requestTimeoutMs` alone.

use serde::Deserialize;

use super::refresh_policy::RefreshPolicy;
use crate::client::request_timeout::{
    json_number, timer_delay_ms, RequestTimeout, RequestTimeoutError,
};

/// `createClient(url, key, options)`; only `auth` and `requestTimeoutMs` are read, other
/// supabase-js options are ignored.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientOptions {
    #[serde(default)]
    pub auth: AuthOptions,
    /// The deadline of every request, REST and auth (default 30 000 ms).
    #[serde(default)]
    pub request_timeout_ms: Option<f64>,
}

impl ClientOptions {
    /// The validated `requestTimeoutMs`, or the default.
    pub fn request_timeout(&self) -> Result<RequestTimeout, RequestTimeoutError> {
        RequestTimeout::from_option(self.request_timeout_ms)
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AuthOptions {
    /// Run the refresh ticker while the page is visible (default `true`).
    pub auto_refresh_token: bool,
    /// Keep the session in localStorage (default `true`); otherwise in memory only.
    pub persist_session: bool,
    /// Overrides `sb-<first host label>-auth-token`.
    pub storage_key: Option<String>,
    /// Test-only: a shorter tick, in milliseconds. Every refresh duration scales with it.
    pub auto_refresh_tick_ms: Option<f64>,
}

impl Default for AuthOptions {
    fn default() -> Self {
        AuthOptions {
            auto_refresh_token: true,
            persist_session: true,
            storage_key: None,
            auto_refresh_tick_ms: None,
        }
    }
}

/// A tick length that is not a positive whole number of milliseconds a timer can take.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "autoRefreshTickMs must be a whole number of milliseconds from 1 to 2147483647, found {found}"
)]
pub struct TickLengthError {
    /// The value as JSON writes it (`NaN` as `null`).
    pub found: String,
}

impl AuthOptions {
    /// The refresh timing these options ask for: auth-js's constants unless a tick is given.
    pub fn refresh_policy(&self) -> Result<RefreshPolicy, TickLengthError> {
        let Some(tick_ms) = self.auto_refresh_tick_ms else {
            return Ok(RefreshPolicy::default());
        };
        timer_delay_ms(tick_ms)
            .and_then(RefreshPolicy::with_tick_ms)
            .ok_or_else(|| TickLengthError {
                found: json_number(tick_ms),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::refresh_policy::AUTO_REFRESH_TICK_DURATION_MS;
    use serde_json::json;

    #[test]
    fn defaults_are_supabase_js_ones() {
        let options: ClientOptions = serde_json::from_value(json!({})).unwrap();
        assert_eq!(options, ClientOptions::default());
        let auth = options.auth;
        assert!(auth.auto_refresh_token && auth.persist_session);
        assert_eq!(auth.storage_key, None);
        assert_eq!(
            auth.refresh_policy().unwrap().tick_ms(),
            AUTO_REFRESH_TICK_DURATION_MS
        );
    }

    #[test]
    fn auth_options_are_read_and_others_ignored() {
        let options: ClientOptions = serde_json::from_value(json!({
            "db": {"schema": "public"},
            "auth": {"autoRefreshToken": false, "persistSession": false, "storageKey": "k", "autoRefreshTickMs": 250, "flowType": "implicit"}
        }))
        .unwrap();
        assert!(!options.auth.auto_refresh_token && !options.auth.persist_session);
        assert_eq!(options.auth.storage_key.as_deref(), Some("k"));
        assert_eq!(options.auth.refresh_policy().unwrap().tick_ms(), 250);
        assert_eq!(options.request_timeout().unwrap().ms(), 30_000);
    }

    #[test]
    fn the_request_timeout_is_read_beside_auth() {
        let options: ClientOptions =
            serde_json::from_value(json!({"requestTimeoutMs": 1500})).unwrap();
        assert_eq!(options.request_timeout().unwrap().ms(), 1500);
        assert_eq!(options.auth, AuthOptions::default());
        let options: ClientOptions =
            serde_json::from_value(json!({"requestTimeoutMs": null})).unwrap();
        assert_eq!(options.request_timeout().unwrap().ms(), 30_000);
        let options: ClientOptions =
            serde_json::from_value(json!({"requestTimeoutMs": 0})).unwrap();
        assert_eq!(options.request_timeout().unwrap_err().found, "0.0");
        assert!(serde_json::from_value::<ClientOptions>(json!({"requestTimeoutMs": "5"})).is_err());
    }

    #[test]
    fn tick_lengths_must_be_whole_positive_timer_delays() {
        for bad in [0.0, -5.0, 0.5, 2_147_483_648.0, f64::NAN] {
            let options = AuthOptions {
                auto_refresh_tick_ms: Some(bad),
                ..Default::default()
            };
            let error = options.refresh_policy().unwrap_err();
            assert!(
                error
                    .to_string()
                    .starts_with("autoRefreshTickMs must be a whole number"),
                "{bad}"
            );
        }
        let error = AuthOptions {
            auto_refresh_tick_ms: Some(0.5),
            ..Default::default()
        }
        .refresh_policy()
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "autoRefreshTickMs must be a whole number of milliseconds from 1 to 2147483647, found 0.5"
        );
        let options = AuthOptions {
            auto_refresh_tick_ms: Some(2_147_483_647.0),
            ..Default::default()
        };
        assert!(options.refresh_policy().is_ok());
    }
}
