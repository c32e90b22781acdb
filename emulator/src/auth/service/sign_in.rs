//! Signing in with a password that was already checked: a new session and its tokens.

use crate::auth::error::AuthError;
use crate::auth::json::TokenResponse;
use crate::auth::session_tokens::{self, Signer};
use rusqlite::Connection;

/// Starts a session for `user_id`, authenticated by its password, and answers with its tokens.
pub fn start_password_session(
    connection: &mut Connection,
    signer: Signer<'_>,
    user_id: &str,
    now: i64,
) -> Result<TokenResponse, AuthError> {
    let transaction = connection.transaction()?;
    let response = session_tokens::start_session(&transaction, signer, user_id, "password", now)?;
    transaction.commit()?;
    Ok(response)
}
