//! `GET /auth/v1/user`: the signed-in user, with their factors (GoTrue api/user.go `UserGet`).

use crate::auth::error::AuthError;
use crate::auth::json::{self, UserJson};
use crate::auth::signed_in_user::SignedInUser;
use crate::auth::store::factors;
use crate::auth::AuthState;
use axum::extract::State;
use axum::Json;

/// The request audience when no `X-JWT-AUD` header names another.
const AUDIENCE: &str = "authenticated";

pub async fn user(
    State(state): State<AuthState>,
    caller: SignedInUser,
) -> Result<Json<UserJson>, AuthError> {
    if caller.claims.aud.first().map(String::as_str) != Some(AUDIENCE) {
        return Err(AuthError::audience_mismatch());
    }
    let user_id = caller.user.id.clone();
    let factors = state
        .db
        .call(move |connection| {
            factors::list_of_user(connection, &user_id).map_err(AuthError::from)
        })
        .await?;
    Ok(Json(json::user(&caller.user, &factors)))
}
