//! The removals and restores a device catches up on (core's `rest::changes`): `listChanges`,
//! `newestChange` and `entriesById`, sent with the client's deadline and read retries.

use geocache_core::rest::changes::{self, Change, ChangeKind};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::Client;
use crate::client::entry_list::EntryList;
use crate::error::ClientError;

#[wasm_bindgen]
impl Client {
    /// The changes after `after` (a `seq`), oldest first, at most `limit` (under the server's row
    /// cap): `{ seq, entryId, change: "removed" | "added" }` objects. Page on with the last `seq`
    /// until an empty answer. Rejects with a ClientError.
    #[wasm_bindgen(js_name = listChanges, unchecked_return_type = "LogChange[]")]
    pub async fn list_changes(&self, after: f64, limit: u32) -> Result<Array, ClientError> {
        let after = whole(after, "after")?;
        let state = &self.state;
        let token = state.session_token().await;
        let request =
            changes::changes_request(&state.config, token.as_deref(), after, limit.into());
        let rows = changes::changes_outcome(state.transport.send_read(&request).await, after)?;
        Ok(rows.iter().map(change_object).collect())
    }

    /// The newest change's `seq` (0 when there is none): where a device with a fresh copy starts.
    #[wasm_bindgen(js_name = newestChange)]
    pub async fn newest_change(&self) -> Result<f64, ClientError> {
        let state = &self.state;
        let token = state.session_token().await;
        let request = changes::newest_change_request(&state.config, token.as_deref());
        let newest = changes::newest_change_outcome(state.transport.send_read(&request).await)?;
        // A seq is far below 2^53.
        Ok(newest as f64)
    }

    /// The entries with these ids that exist, newest first (validated as `listEntries` does).
    #[wasm_bindgen(js_name = entriesById)]
    pub async fn entries_by_id(&self, ids: Vec<f64>) -> Result<EntryList, ClientError> {
        let state = &self.state;
        if ids.is_empty() {
            return Ok(EntryList::new(geocache_core::EntryList::default()));
        }
        let token = state.session_token().await;
        let request = changes::entries_by_id_request(&state.config, token.as_deref(), &ids);
        let entries = changes::entries_by_id_outcome(state.transport.send_read(&request).await)?;
        Ok(EntryList::new(entries))
    }
}

/// `value` as a whole number, or the argument's TypeError.
fn whole(value: f64, name: &'static str) -> Result<i64, ClientError> {
    if value.fract() == 0.0 && (0.0..9_007_199_254_740_992.0).contains(&value) {
        // Whole, non-negative and below 2^53: the cast is exact.
        Ok(value as i64)
    } else {
        Err(ClientError::Argument {
            name,
            reason: "expected a whole number from 0".into(),
        })
    }
}

fn change_object(change: &Change) -> JsValue {
    let object = Object::new();
    let kind = match change.change {
        ChangeKind::Removed => "removed",
        ChangeKind::Added => "added",
    };
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(&object, &"seq".into(), &(change.seq as f64).into());
    let _ = Reflect::set(&object, &"entryId".into(), &change.entry_id.into());
    let _ = Reflect::set(&object, &"change".into(), &kind.into());
    object.into()
}
