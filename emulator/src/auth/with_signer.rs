//! The step every handler that starts or renews a session takes: its service runs on the
//! database's connection with a signer for the tokens it mints.

use crate::auth::error::AuthError;
use crate::auth::session_tokens::Signer;
use crate::auth::AuthState;
use rusqlite::Connection;
use std::sync::Arc;

/// Runs `work` through `Database::call` with a signer over the server's keys and auth settings.
pub async fn with_signer<T, F>(state: &AuthState, work: F) -> Result<T, AuthError>
where
    T: Send + 'static,
    F: FnOnce(&mut Connection, Signer<'_>) -> Result<T, AuthError> + Send + 'static,
{
    let (keys, settings) = (Arc::clone(&state.keys), Arc::clone(&state.settings));
    state
        .db
        .call(move |connection| {
            let signer = Signer {
                keys: &keys,
                settings: &settings,
            };
            work(connection, signer)
        })
        .await
}
