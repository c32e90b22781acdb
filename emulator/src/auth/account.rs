//! A new email account as GoTrue creates it on sign-up with auto-confirmation: the address and
//! the password checked as sign-up checks them, the password hashed, the identity's claims in the
//! metadata. Sign-up (`POST /auth/v1/signup`) and `geocache-emulator owner add`, which stands for
//! the dashboard's *Add user*, both make accounts this way.

use crate::auth::error::AuthError;
use crate::auth::store::users::UserRecord;
use crate::auth::{password, validation};
use crate::random;
use serde_json::{json, Map, Value};

/// The address as stored (GoTrue's checks, lower-cased), once the password passes sign-up's
/// strength rules too.
pub fn checked_email(email: &str, password: &str) -> Result<String, AuthError> {
    if password.is_empty() {
        return Err(AuthError::password_required());
    }
    validation::password_strength(password)?;
    validation::email(email)
}

/// A confirmed account for `email` (already checked) with `password` hashed at `hash_cost`, and
/// `user_metadata` merged under the identity's claims, created at `now` (microseconds).
pub async fn new_account(
    email: String,
    password: String,
    hash_cost: u32,
    user_metadata: Map<String, Value>,
    now: i64,
) -> Result<UserRecord, AuthError> {
    let encrypted_password = password::hash(password, hash_cost).await?;
    let id = random::uuid()?.to_string();
    let identity_id = random::uuid()?.to_string();
    let mut user_metadata = user_metadata;
    // The identity's claims join the metadata without overriding what the client sent, and the
    // confirmation marks the address verified (GoTrue `Signup` and `User.Confirm`).
    let identity_data = json!({
        "email": email,
        "email_verified": false,
        "phone_verified": false,
        "sub": id,
    });
    for (key, value) in identity_data.as_object().into_iter().flatten() {
        user_metadata
            .entry(key.clone())
            .or_insert_with(|| value.clone());
    }
    user_metadata.insert("email_verified".to_owned(), Value::Bool(true));
    Ok(UserRecord {
        id,
        email,
        encrypted_password,
        email_confirmed_at: now,
        last_sign_in_at: None,
        app_metadata: json!({"provider": "email", "providers": ["email"]}),
        user_metadata: Value::Object(user_metadata),
        identity_id,
        identity_data,
        created_at: now,
        updated_at: now,
    })
}

/// The address as GoTrue stores and looks it up (checked, lower-cased).
pub fn checked_address(email: &str) -> Result<String, AuthError> {
    validation::email(email)
}
