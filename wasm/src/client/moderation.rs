//! The owner's calls (core's `rest::moderation`), each with the signed-in session's access token
//! as the bearer: `removeEntry`, `removedEntries` (every page) and `restoreEntry`. Whether the
//! caller may is the server's to decide (row-level security, and the functions' own checks).

use geocache_core::rest::moderation::{self, RemovedPager, RemovedStep};
use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::Client;
use crate::client::entry_list::EntryList;
use crate::error::ClientError;
use crate::js::to_js;

#[wasm_bindgen]
impl Client {
    /// Removes the entry `id`: resolves to true when it went, false when the server removed nothing
    /// (not signed in as an owner at AAL2, or already removed). Sent once, never retried.
    #[wasm_bindgen(js_name = removeEntry)]
    pub async fn remove_entry(&self, id: f64) -> Result<bool, ClientError> {
        let state = &self.state;
        let token = state.session_token().await;
        let request = moderation::remove_entry_request(&state.config, token.as_deref(), id);
        Ok(moderation::remove_entry_outcome(
            state.transport.send(&request).await,
        )?)
    }

    /// Puts the removed entry `id` back with its id, time, name and message; resolves to the
    /// entry restored. An id that is not a removed entry rejects with code `P0002`.
    #[wasm_bindgen(js_name = restoreEntry)]
    pub async fn restore_entry(&self, id: f64) -> Result<EntryList, ClientError> {
        let state = &self.state;
        let token = state.session_token().await;
        let request = moderation::restore_entry_request(&state.config, token.as_deref(), id);
        let restored = moderation::restore_entry_outcome(state.transport.send(&request).await)?;
        Ok(EntryList::new(restored))
    }

    /// Every removed entry, most recently removed first, read in keyset pages under the row cap
    /// (each retried as reads are): `{ id, created_at, name, message, removed_at }` objects. A page
    /// that fails rejects with its number (`page`), as `listEntries` does.
    #[wasm_bindgen(js_name = removedEntries, unchecked_return_type = "RemovedEntry[]")]
    pub async fn removed_entries(&self) -> Result<Array, ClientError> {
        let state = &self.state;
        let mut pager = RemovedPager::default();
        let all = Array::new();
        loop {
            let token = state.session_token().await;
            let request = pager.request(&state.config, token.as_deref());
            match pager.accept(state.transport.send_read(&request).await)? {
                RemovedStep::Next(rows) => {
                    for row in rows {
                        let object = to_js(&RemovedRow::from(&row))
                            .map_err(|error| ClientError::Internal(error.to_string()))?;
                        all.push(&object);
                    }
                }
                RemovedStep::Done => return Ok(all),
            }
        }
    }
}

/// A removed entry as JS sees it (the server's field names).
#[derive(serde::Serialize)]
struct RemovedRow<'a> {
    id: f64,
    created_at: &'a str,
    name: &'a str,
    message: &'a str,
    removed_at: &'a str,
}

impl<'a> From<&'a moderation::RemovedEntry> for RemovedRow<'a> {
    fn from(row: &'a moderation::RemovedEntry) -> Self {
        RemovedRow {
            id: row.id,
            created_at: &row.created_at,
            name: &row.name,
            message: &row.message,
            removed_at: &row.removed_at,
        }
    }
}
