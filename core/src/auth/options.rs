//! The `auth` part of `createClient`'s options, with supabase-js's defaults.

use serde::Deserialize;

use super::refresh_policy::RefreshPolicy;

/// `createClient(url, key, options)`; only `auth` is read, other supabase-js options are ignored.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientOptions {
    #[serde(default)]
    pub auth: AuthOptions,
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
    /// The value as JSON writes it (`NaN` as `null`); formatting floats with `Display` would
    /// pull a second float printer into the wasm bundle.
    pub found: String,
}

impl AuthOptions {
    /// The refresh timing these options ask for: auth-js's constants unless a tick is given.
    pub fn refresh_policy(&self) -> Result<RefreshPolicy, TickLengthError> {
        let Some(tick_ms) = self.auto_refresh_tick_ms else {
            return Ok(RefreshPolicy::default());
        };
        // Browsers take timer delays as 32-bit signed integers.
        let whole = tick_ms.fract() == 0.0 && (1.0..=f64::from(i32::MAX)).contains(&tick_ms);
        whole
            .then(|| RefreshPolicy::with_tick_ms(tick_ms as u32))
            .flatten()
            .ok_or_else(|| TickLengthError {
                found: serde_json::Value::from(tick_ms).to_string(),
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
