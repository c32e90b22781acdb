//! `createClient` and the exported `Client` class.

use std::rc::Rc;

use geocache_core::config::client_info;
use geocache_core::rest::logbook;
use geocache_core::{ClientConfig, NewEntry};
use wasm_bindgen::prelude::*;

use crate::error::ClientError;
use crate::{js, transport};

/// Creates a client for a Supabase project (or the local emulator).
///
/// Throws a `ConfigError` with supabase-js's message when the URL is missing, not http(s) or
/// malformed, or when the key is missing.
#[wasm_bindgen(js_name = createClient)]
pub fn create_client(
    #[wasm_bindgen(js_name = supabaseUrl, unchecked_param_type = "string")] supabase_url: Option<
        String,
    >,
    #[wasm_bindgen(js_name = supabaseKey, unchecked_param_type = "string")] supabase_key: Option<
        String,
    >,
) -> Result<Client, ClientError> {
    let config = ClientConfig::new(
        supabase_url.as_deref().unwrap_or_default(),
        supabase_key.as_deref().unwrap_or_default(),
    )?
    .with_client_info(client_info(
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION"),
    ));
    Ok(Client {
        state: Rc::new(ClientState { config }),
    })
}

/// A logbook client. Its state is shared (`Rc`) so that namespaces such as `client.auth` can hold
/// it alongside the logbook calls.
#[wasm_bindgen]
pub struct Client {
    state: Rc<ClientState>,
}

struct ClientState {
    config: ClientConfig,
}

impl ClientState {
    /// The `Authorization` bearer: the anon key while nobody is signed in, as supabase-js's
    /// `_getAccessToken` falls back to it.
    fn bearer(&self) -> &str {
        self.config.key()
    }
}

#[wasm_bindgen]
impl Client {
    /// All entries, newest first (ordering guaranteed by the core). Rejects with a ClientError.
    #[wasm_bindgen(js_name = listEntries, unchecked_return_type = "LogEntry[]")]
    pub async fn list_entries(&self) -> Result<JsValue, ClientError> {
        let state = &self.state;
        let request = logbook::list_entries_request(&state.config, state.bearer());
        let entries = logbook::list_entries_outcome(transport::send(&request).await)?;
        js::to_js(&entries).map_err(ClientError::internal)
    }

    /// Inserts one entry. Resolves to undefined. Rejects with a ClientError.
    #[wasm_bindgen(js_name = signLogbook)]
    pub async fn sign_logbook(
        &self,
        #[wasm_bindgen(unchecked_param_type = "NewEntry")] entry: JsValue,
    ) -> Result<(), ClientError> {
        let entry: NewEntry =
            js::from_js(entry).map_err(|error| ClientError::argument("entry", error))?;
        let state = &self.state;
        let request = logbook::sign_logbook_request(&state.config, state.bearer(), &entry);
        logbook::sign_logbook_outcome(transport::send(&request).await)?;
        Ok(())
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
    use geocache_core::ConfigError;

    #[test]
    fn requests_identify_this_package() {
        let client = create_client(Some("http://127.0.0.1:54321".into()), Some("k".into()))
            .expect("valid config");
        assert_eq!(
            client.config().client_info(),
            format!("geocache-client/{}; runtime=web", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!(client.config().rest_url(), "http://127.0.0.1:54321/rest/v1");
    }

    #[test]
    fn absent_arguments_are_reported_like_empty_ones() {
        let error = create_client(None, Some("k".into()))
            .err()
            .expect("refused");
        assert!(matches!(
            error,
            ClientError::Config(ConfigError::UrlRequired)
        ));
        let error = create_client(Some("http://h".into()), None)
            .err()
            .expect("refused");
        assert!(matches!(
            error,
            ClientError::Config(ConfigError::KeyRequired)
        ));
    }
}
