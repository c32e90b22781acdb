//! Who is calling a storage route: the role Storage runs the query as (the bearer JWT's role
//! when one is sent, else the API key's) and the user id that becomes an object's owner. A bearer
//! token that does not verify is refused as Storage refuses it: access denied, with the JWT
//! library's reason.

use crate::gateway::ApiKeyRole;
use crate::keys::{JwtError, Keys, Role};
use crate::rest::role::bearer_token;
use crate::storage::error::StorageError;
use crate::storage::StorageState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub role: Role,
    /// The token's `sub`, when it names a user.
    pub owner: Option<String>,
}

impl Caller {
    pub fn service() -> Caller {
        Caller {
            role: Role::ServiceRole,
            owner: None,
        }
    }
}

impl FromRequestParts<StorageState> for Caller {
    type Rejection = StorageError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &StorageState,
    ) -> Result<Self, StorageError> {
        let ApiKeyRole(key_role) = parts
            .extensions
            .get::<ApiKeyRole>()
            .copied()
            .ok_or_else(|| StorageError::internal("a storage route lacks the gateway"))?;
        let Some(token) = bearer_token(&parts.headers) else {
            return Ok(Caller {
                role: key_role,
                owner: None,
            });
        };
        let claims = state
            .keys
            .verify(token, state.clock.now_seconds())
            .map_err(|error| StorageError::access_denied(&jwt_error_message(&error)))?;
        let role = Keys::role_of(&claims)
            .map_err(|error| StorageError::access_denied(&jwt_error_message(&error)))?;
        let owner = claims
            .get("sub")
            .and_then(|sub| sub.as_str())
            .map(str::to_owned);
        Ok(Caller { role, owner })
    }
}

/// The words of `jose` (the JWT library Storage verifies tokens with) for why a token was
/// refused, which Storage passes on.
pub fn jwt_error_message(error: &JwtError) -> String {
    match error {
        JwtError::Expired => "\"exp\" claim timestamp check failed".to_owned(),
        JwtError::NotYetValid => "\"nbf\" claim timestamp check failed".to_owned(),
        JwtError::IssuedInFuture => "\"iat\" claim timestamp check failed".to_owned(),
        JwtError::BadSignature => "signature verification failed".to_owned(),
        JwtError::UnknownRole(role) => format!("role \"{role}\" does not exist"),
        JwtError::WrongAudience => "unexpected \"aud\" claim value".to_owned(),
        _ => "Invalid Compact JWS".to_owned(),
    }
}
