//! JSON request bodies of the storage routes. The storage routes' gateway does not read bodies
//! (uploads stream to disk), so these extractors bound what they read themselves: the gateway's
//! `--max-body-bytes`.

use crate::storage::error::StorageError;
use crate::storage::StorageState;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use http_body_util::{BodyExt, Limited};
use serde::de::DeserializeOwned;

/// A JSON body parsed as `T`; an empty body reads as `{}`.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

/// A body that is read (within the limit) and dropped: `{}` on routes that take none.
#[derive(Debug)]
pub struct IgnoredJson;

async fn read(request: Request, limit: usize) -> Result<Bytes, StorageError> {
    match Limited::new(request.into_body(), limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.is::<http_body_util::LengthLimitError>() => {
            Err(StorageError::entity_too_large().closing())
        }
        Err(_) => Err(StorageError::invalid_request(
            "Could not read the request body",
        )),
    }
}

impl<T: DeserializeOwned> FromRequest<StorageState> for JsonBody<T> {
    type Rejection = StorageError;

    async fn from_request(request: Request, state: &StorageState) -> Result<Self, StorageError> {
        let bytes = read(request, state.max_body_bytes).await?;
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        serde_json::from_slice(text)
            .map(JsonBody)
            .map_err(|error| StorageError::invalid_request(format!("Invalid JSON body: {error}")))
    }
}

impl FromRequest<StorageState> for IgnoredJson {
    type Rejection = StorageError;

    async fn from_request(request: Request, state: &StorageState) -> Result<Self, StorageError> {
        read(request, state.max_body_bytes).await?;
        Ok(IgnoredJson)
    }
}
