//! What every storage call shares: the project's configuration, the current token, and sending
//! a core call to resolve `{ data, error }`.

use geocache_core::storage::{StorageApi, StorageCall, StorageError};
use geocache_core::ClientConfig;
use serde_json::Value;
use wasm_bindgen::JsValue;

use super::{result, send};
use crate::error::ClientError;
use crate::transport::token_source::TokenSource;

/// What every storage call needs: the project's configuration and the current token.
pub struct Context {
    pub config: ClientConfig,
    pub token: TokenSource,
}

impl Context {
    pub async fn api(&self) -> StorageApi {
        let token = (self.token)().await;
        StorageApi::new(&self.config, token.as_deref())
    }

    /// Sends a JSON call (no file) and resolves to `{ data, error }`.
    pub async fn run(&self, call: StorageCall) -> Result<JsValue, ClientError> {
        self.run_with_file(call, &JsValue::UNDEFINED).await
    }

    /// Sends a call with the caller's file and resolves to `{ data, error }`.
    pub async fn run_with_file(
        &self,
        call: StorageCall,
        file: &JsValue,
    ) -> Result<JsValue, ClientError> {
        match exchange(&call, file).await {
            Ok(data) => Ok(result::respond(Ok(result::to_js(&data)?))),
            Err(error) => Ok(result::respond(Err(error))),
        }
    }
}

/// The call sent, and its answer decoded.
async fn exchange(call: &StorageCall, file: &JsValue) -> Result<Value, StorageError> {
    let response = send::send(&call.request, file).await?;
    let reply = send::reply(response).await?;
    call.decode.data(&reply)
}
