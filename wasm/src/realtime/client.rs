//! `createRealtimeClient` and the exported `RealtimeClient`: Supabase Realtime on its own, as
//! realtime-js has it, for code that needs channels without the logbook client (the logbook page
//! loads it, as wasm/pkg-live, only once its first entries are painted). It has `Client`'s
//! `channel`, `getChannels`, `removeChannel` and `removeAllChannels`; nobody signs in through
//! it, so its channels join with the key.

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use crate::config::client_config;
use crate::error::ClientError;
use crate::realtime::{Realtime, RealtimeChannel};

/// Creates a realtime client for a Supabase project (or the local emulator): the same URL and key
/// as `createClient`. Throws a `ConfigError` with supabase-js's message when the URL is missing,
/// not http(s) or malformed, or when the key is missing. Nothing connects before a channel's
/// `subscribe()`.
#[wasm_bindgen(js_name = createRealtimeClient)]
pub fn create_realtime_client(
    #[wasm_bindgen(js_name = supabaseUrl, unchecked_param_type = "string")] supabase_url: Option<
        String,
    >,
    #[wasm_bindgen(js_name = supabaseKey, unchecked_param_type = "string")] supabase_key: Option<
        String,
    >,
) -> Result<RealtimeClient, ClientError> {
    let config = client_config(
        supabase_url.as_deref().unwrap_or_default(),
        supabase_key.as_deref().unwrap_or_default(),
    )?;
    Ok(RealtimeClient {
        realtime: Realtime::with_key(&config),
    })
}

/// Channels over one WebSocket, joined with the key.
#[wasm_bindgen]
pub struct RealtimeClient {
    realtime: Realtime,
}

#[wasm_bindgen]
impl RealtimeClient {
    /// The channel `name` (topic `realtime:<name>`; the same channel again for the same name),
    /// with `options.config`: `broadcast: { self, ack }` and `presence: { key }`. Nothing is sent
    /// before `subscribe()`. Options of the wrong shape are a TypeError (`invalid_argument`).
    pub fn channel(
        &self,
        name: &str,
        #[wasm_bindgen(unchecked_optional_param_type = "RealtimeChannelOptions")] options: JsValue,
    ) -> Result<RealtimeChannel, ClientError> {
        self.realtime.channel(name, &options)
    }

    /// Every channel not yet removed, in creation order.
    #[wasm_bindgen(js_name = getChannels)]
    pub fn get_channels(&self) -> Vec<RealtimeChannel> {
        self.realtime.channels()
    }

    /// `channel.unsubscribe()`: resolves 'ok', 'timed out' or 'error'; the channel is gone after.
    #[wasm_bindgen(js_name = removeChannel, unchecked_return_type = "Promise<RealtimeSendResult>")]
    pub fn remove_channel(&self, channel: &RealtimeChannel) -> Promise {
        self.realtime.remove(channel)
    }

    /// Every channel's `unsubscribe()`; resolves to their results.
    #[wasm_bindgen(
        js_name = removeAllChannels,
        unchecked_return_type = "Promise<RealtimeSendResult[]>"
    )]
    pub fn remove_all_channels(&self) -> Promise {
        self.realtime.remove_all()
    }

    /// Closes the socket, clears its timer and forgets every channel (waiting sends settle
    /// 'error'). Safe to call more than once.
    pub fn dispose(&self) {
        self.realtime.dispose();
    }
}

impl RealtimeClient {
    /// The realtime part (tests read its socket and timer).
    pub fn realtime(&self) -> &Realtime {
        &self.realtime
    }
}

#[cfg(test)]
mod tests {
    use geocache_core::ConfigError;

    use super::*;

    fn refusal(url: Option<&str>, key: Option<&str>) -> ClientError {
        create_realtime_client(url.map(Into::into), key.map(Into::into))
            .err()
            .expect("refused")
    }

    #[test]
    fn a_missing_url_or_key_is_a_config_error_before_anything_connects() {
        assert!(matches!(
            refusal(None, Some("k")),
            ClientError::Config(ConfigError::UrlRequired)
        ));
        assert!(matches!(
            refusal(Some("http://h"), None),
            ClientError::Config(ConfigError::KeyRequired)
        ));
        assert!(matches!(
            refusal(Some("ftp://h"), Some("k")),
            ClientError::Config(ConfigError::UrlInvalidScheme { .. })
        ));
    }
}
