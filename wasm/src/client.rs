//! `createClient` and the exported `Client` class.

use std::rc::Rc;

#[cfg(feature = "auth")]
use geocache_core::auth::ClientOptions;
use geocache_core::config::client_info;
use geocache_core::rest::logbook;
use geocache_core::{ClientConfig, ConfigError};
use wasm_bindgen::prelude::*;

#[cfg(feature = "auth")]
use crate::auth::{Auth, AuthClient};
use crate::entry_list::{new_entry, EntryList};
use crate::error::ClientError;
use crate::transport;

/// Creates a client for a Supabase project (or the local emulator).
///
/// Throws a `ConfigError` with supabase-js's message when the URL is missing, not http(s) or
/// malformed, or when the key is missing; a `TypeError` when `options` cannot be read. The
/// client restores a stored session and, while the page is visible, keeps it refreshed.
#[cfg(feature = "auth")]
#[wasm_bindgen(js_name = createClient)]
pub fn create_client(
    #[wasm_bindgen(js_name = supabaseUrl, unchecked_param_type = "string")] supabase_url: Option<
        String,
    >,
    #[wasm_bindgen(js_name = supabaseKey, unchecked_param_type = "string")] supabase_key: Option<
        String,
    >,
    #[wasm_bindgen(unchecked_optional_param_type = "ClientOptions")] options: Option<
        js_sys::Object,
    >,
) -> Result<Client, ClientError> {
    let config = client_config(
        supabase_url.as_deref().unwrap_or_default(),
        supabase_key.as_deref().unwrap_or_default(),
    )?;
    let options: ClientOptions = match options {
        Some(options) => crate::js::from_js(options.into())
            .map_err(|error| ClientError::argument("options", error))?,
        None => ClientOptions::default(),
    };
    let auth = AuthClient::new(&config, &options.auth).map_err(|error| ClientError::Argument {
        name: "options",
        reason: error.to_string(),
    })?;
    auth.initialize();
    Ok(Client {
        state: Rc::new(ClientState { config, auth }),
    })
}

/// Creates a client for a Supabase project (or the local emulator).
///
/// Throws a `ConfigError` with supabase-js's message when the URL is missing, not http(s) or
/// malformed, or when the key is missing. (This build has no auth client.)
#[cfg(not(feature = "auth"))]
#[wasm_bindgen(js_name = createClient)]
pub fn create_client(
    #[wasm_bindgen(js_name = supabaseUrl, unchecked_param_type = "string")] supabase_url: Option<
        String,
    >,
    #[wasm_bindgen(js_name = supabaseKey, unchecked_param_type = "string")] supabase_key: Option<
        String,
    >,
) -> Result<Client, ClientError> {
    let config = client_config(
        supabase_url.as_deref().unwrap_or_default(),
        supabase_key.as_deref().unwrap_or_default(),
    )?;
    Ok(Client {
        state: Rc::new(ClientState { config }),
    })
}

/// The validated configuration, identifying this package in `X-Client-Info`.
fn client_config(url: &str, key: &str) -> Result<ClientConfig, ConfigError> {
    Ok(ClientConfig::new(url, key)?.with_client_info(client_info(
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION"),
    )))
}

/// A logbook client with its auth client (`client.auth`). Both share one state (`Rc`).
#[wasm_bindgen]
pub struct Client {
    state: Rc<ClientState>,
}

struct ClientState {
    config: ClientConfig,
    #[cfg(feature = "auth")]
    auth: Rc<AuthClient>,
}

impl ClientState {
    /// The `Authorization` bearer: the signed-in user's access token, or the anon key while
    /// nobody is signed in (supabase-js's `_getAccessToken`). The apikey stays the anon key.
    #[cfg(feature = "auth")]
    async fn bearer(&self) -> String {
        match self.auth.access_token().await {
            Some(token) => token,
            None => self.config.key().to_owned(),
        }
    }

    /// Without the auth client nobody is ever signed in: the bearer is the anon key.
    #[cfg(not(feature = "auth"))]
    async fn bearer(&self) -> String {
        self.config.key().to_owned()
    }
}

#[wasm_bindgen]
impl Client {
    /// All entries, newest first (ordering guaranteed by the core), kept in wasm memory: read
    /// them by index (`length`, `name(i)`, …, or `get(i)` for a `LogEntry`). Rejects with a
    /// ClientError.
    #[wasm_bindgen(js_name = listEntries)]
    pub async fn list_entries(&self) -> Result<EntryList, ClientError> {
        let state = &self.state;
        let request = logbook::list_entries_request(&state.config, &state.bearer().await);
        let entries = logbook::list_entries_outcome(transport::send(&request).await)?;
        Ok(EntryList::new(entries))
    }

    /// The newest `count` entries, read, validated and ordered as `listEntries` does: a first
    /// screen to show while the whole list loads. Rejects with a ClientError.
    #[wasm_bindgen(js_name = listNewestEntries)]
    pub async fn list_newest_entries(&self, count: u32) -> Result<EntryList, ClientError> {
        let state = &self.state;
        let bearer = state.bearer().await;
        let request = logbook::newest_entries_request(&state.config, &bearer, count.into());
        let entries = logbook::list_entries_outcome(transport::send(&request).await)?;
        Ok(EntryList::new(entries))
    }

    /// Inserts one entry. Resolves to undefined. Rejects with a ClientError.
    #[wasm_bindgen(js_name = signLogbook)]
    pub async fn sign_logbook(
        &self,
        #[wasm_bindgen(unchecked_param_type = "NewEntry")] entry: JsValue,
    ) -> Result<(), ClientError> {
        let entry = new_entry(&entry)?;
        let state = &self.state;
        let request = logbook::sign_logbook_request(&state.config, &state.bearer().await, &entry);
        logbook::sign_logbook_outcome(transport::send(&request).await)?;
        Ok(())
    }

    /// The auth client (sessions, auto-refresh, MFA), sharing this client's state.
    #[cfg(feature = "auth")]
    #[wasm_bindgen(getter)]
    pub fn auth(&self) -> Auth {
        Auth::new(Rc::clone(&self.state.auth))
    }

    /// Removes the auth client's visibility listener and refresh timers and forgets its
    /// subscribers (also done when the client is garbage-collected). Safe to call more than once.
    #[cfg(feature = "auth")]
    pub fn dispose(&self) {
        self.state.auth.dispose();
    }
}

impl Client {
    /// The validated configuration (URLs, storage key, client info).
    pub fn config(&self) -> &ClientConfig {
        &self.state.config
    }
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

    fn create(url: Option<&str>, key: Option<&str>) -> Result<Client, ClientError> {
        let (url, key) = (url.map(Into::into), key.map(Into::into));
        #[cfg(feature = "auth")]
        return create_client(url, key, None);
        #[cfg(not(feature = "auth"))]
        return create_client(url, key);
    }

    #[test]
    fn absent_arguments_are_reported_like_empty_ones() {
        let error = create(None, Some("k")).err().expect("refused");
        assert!(matches!(
            error,
            ClientError::Config(ConfigError::UrlRequired)
        ));
        let error = create(Some("http://h"), None).err().expect("refused");
        assert!(matches!(
            error,
            ClientError::Config(ConfigError::KeyRequired)
        ));
    }
}
