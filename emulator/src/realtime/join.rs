//! A `phx_join`'s `config`, as realtime-js sends it:
//! `{broadcast: {self, ack}, presence: {enabled, key}, postgres_changes: [...], private}`.
//! Missing settings are off, as on hosted Realtime.

use crate::realtime::binding::{self, Requested};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct JoinConfig {
    /// The sender hears its own broadcasts.
    pub broadcast_self: bool,
    /// Each broadcast push is answered with a `phx_reply`.
    pub broadcast_ack: bool,
    pub presence_enabled: bool,
    /// The presence key asked for; empty or absent lets the server choose one.
    pub presence_key: Option<String>,
    pub postgres_changes: Vec<Requested>,
    /// A channel whose access Realtime authorises through RLS on `realtime.messages`.
    pub private: bool,
}

impl JoinConfig {
    pub fn read(config: &Value) -> JoinConfig {
        let flag = |section: &str, key: &str| {
            config
                .get(section)
                .and_then(|settings| settings.get(key))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        JoinConfig {
            broadcast_self: flag("broadcast", "self"),
            broadcast_ack: flag("broadcast", "ack"),
            presence_enabled: flag("presence", "enabled"),
            presence_key: config
                .get("presence")
                .and_then(|settings| settings.get("key"))
                .and_then(Value::as_str)
                .filter(|key| !key.is_empty())
                .map(str::to_owned),
            postgres_changes: binding::requested(config),
            private: config.get("private").and_then(Value::as_bool) == Some(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn realtime_js_config_is_read_and_missing_settings_are_off() {
        let config = JoinConfig::read(&json!({
            "broadcast": {"ack": true, "self": false},
            "presence": {"key": "", "enabled": true},
            "postgres_changes": [{"event": "*", "schema": "public", "table": "geocache_logs"}],
            "private": false,
        }));
        assert!(config.broadcast_ack && !config.broadcast_self);
        assert!(config.presence_enabled);
        assert_eq!(config.presence_key, None);
        assert_eq!(config.postgres_changes.len(), 1);
        assert!(!config.private);
        let empty = JoinConfig::read(&json!({}));
        assert!(!empty.broadcast_ack && !empty.broadcast_self && !empty.presence_enabled);
        assert!(empty.postgres_changes.is_empty());
        let keyed = JoinConfig::read(&json!({"presence": {"key": "ann"}, "private": true}));
        assert_eq!(keyed.presence_key.as_deref(), Some("ann"));
        assert!(keyed.private);
    }
}
