//! The refresh-token grant's transaction: rotation, and reuse detection.
//!
//! Refresh tokens rotate: each use revokes the token and issues its child. Using a revoked token
//! again is refused with `refresh_token_already_used` and revokes every token of its session
//! (GoTrue's reuse detection with rotation on; the emulator has no reuse interval).

use crate::auth::error::AuthError;
use crate::auth::json::TokenResponse;
use crate::auth::session_tokens::{self, Signer};
use crate::auth::store::sessions;
use rusqlite::Connection;

/// Exchanges the refresh token `presented` for a new access token and the token's child.
pub fn refresh_session(
    connection: &mut Connection,
    signer: Signer<'_>,
    presented: &str,
    now: i64,
) -> Result<TokenResponse, AuthError> {
    let transaction = connection.transaction()?;
    let token = sessions::find_refresh_token(&transaction, presented)?
        .ok_or_else(AuthError::refresh_token_not_found)?;
    if token.revoked {
        sessions::revoke_refresh_tokens(&transaction, &token.session_id, now)?;
        transaction.commit()?;
        return Err(AuthError::refresh_token_already_used());
    }
    let child = session_tokens::rotate_refresh_token(
        &transaction,
        &token.session_id,
        Some(&token.token),
        now,
    )?;
    sessions::touch(&transaction, &token.session_id, now)?;
    let response = session_tokens::respond(&transaction, signer, &token.session_id, child, now)?;
    transaction.commit()?;
    Ok(response)
}
