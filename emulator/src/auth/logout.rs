//! `POST /auth/v1/logout?scope=global|local|others` (GoTrue api/logout.go): ends sessions, and
//! with them their refresh tokens. Access tokens already issued stay valid until they expire, as
//! with any JWT, except on the auth routes, which look the session up.

use crate::auth::error::AuthError;
use crate::auth::signed_in_user::SignedInUser;
use crate::auth::store::sessions;
use crate::auth::AuthState;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Global,
    Local,
    Others,
}

fn scope(query: Option<&str>) -> Result<Scope, AuthError> {
    let requested = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(key, _)| key == "scope")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default();
    match requested.as_str() {
        "" | "global" => Ok(Scope::Global),
        "local" => Ok(Scope::Local),
        "others" => Ok(Scope::Others),
        other => Err(AuthError::unsupported_logout_scope(other)),
    }
}

pub async fn logout(
    State(state): State<AuthState>,
    RawQuery(query): RawQuery,
    caller: SignedInUser,
) -> Result<StatusCode, AuthError> {
    let scope = scope(query.as_deref())?;
    state
        .db
        .call(move |connection| -> Result<_, AuthError> {
            let user_id = &caller.user.id;
            // A token without a session logs out everywhere, whatever the scope.
            match (scope, caller.session.as_ref()) {
                (Scope::Local, Some(session)) => sessions::delete(connection, &session.id)?,
                (Scope::Others, Some(session)) => {
                    sessions::delete_others_of_user(connection, user_id, &session.id)?
                }
                _ => sessions::delete_all_of_user(connection, user_id)?,
            }
            Ok(())
        })
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_default_to_global() {
        assert_eq!(scope(None), Ok(Scope::Global));
        assert_eq!(scope(Some("scope=local")), Ok(Scope::Local));
        assert_eq!(scope(Some("x=1&scope=others")), Ok(Scope::Others));
        assert_eq!(
            scope(Some("scope=everything")),
            Err(AuthError::unsupported_logout_scope("everything"))
        );
    }
}
