//! Sign-up's transaction: the new user and their first session.

use crate::auth::error::AuthError;
use crate::auth::json::TokenResponse;
use crate::auth::session_tokens::{self, Signer};
use crate::auth::store::users::{self, UserRecord};
use rusqlite::Connection;

/// Stores `user`, unless the address was taken meanwhile, and signs them in.
pub fn create_user_with_session(
    connection: &mut Connection,
    signer: Signer<'_>,
    user: &UserRecord,
    now: i64,
) -> Result<TokenResponse, AuthError> {
    let transaction = connection.transaction()?;
    // A concurrent sign-up may have taken the address since the handler's check.
    if users::find_by_email(&transaction, &user.email)?.is_some() {
        return Err(AuthError::user_already_exists());
    }
    users::insert(&transaction, user)?;
    let response = session_tokens::start_session(&transaction, signer, &user.id, "password", now)?;
    transaction.commit()?;
    Ok(response)
}
