//! The signed-in caller of an auth route (GoTrue `requireAuthentication`): a valid bearer access
//! token whose `sub` names an existing user and whose `session_id`, when present, names a live
//! session.

use crate::auth::error::AuthError;
use crate::auth::jwt::{self, BearerClaims};
use crate::auth::store::sessions::{self, SessionRecord};
use crate::auth::store::users::{self, UserRecord};
use crate::auth::AuthState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct SignedInUser {
    pub user: UserRecord,
    /// `None` for a token without a session (GoTrue accepts those on some routes).
    pub session: Option<SessionRecord>,
    pub claims: BearerClaims,
}

impl SignedInUser {
    /// GoTrue `requireNotAnonymous`, for the factor routes.
    pub fn require_not_anonymous(&self) -> Result<(), AuthError> {
        if self.claims.is_anonymous {
            Err(AuthError::anonymous_user())
        } else {
            Ok(())
        }
    }

    /// The session, which enrolling and unenrolling need.
    pub fn session(&self, why: &str) -> Result<&SessionRecord, AuthError> {
        self.session
            .as_ref()
            .ok_or_else(|| AuthError::internal(why))
    }
}

impl FromRequestParts<AuthState> for SignedInUser {
    type Rejection = AuthError;

    async fn from_request_parts(parts: &mut Parts, state: &AuthState) -> Result<Self, AuthError> {
        let token = bearer_token(&parts.headers).ok_or_else(AuthError::no_authorization)?;
        let claims = jwt::verify_bearer(&state.keys, token, state.clock.now_seconds())?;
        let sub = claims
            .sub
            .as_deref()
            .ok_or_else(AuthError::missing_sub_claim)?;
        let user_id = Uuid::parse_str(sub)
            .map_err(|_| AuthError::sub_claim_not_uuid())?
            .to_string();
        let session_id = match claims.session_id.as_deref() {
            None | Some("") => None,
            Some(text) => match Uuid::parse_str(text) {
                Ok(id) if id.is_nil() => None,
                Ok(id) => Some(id.to_string()),
                Err(_) => return Err(AuthError::session_id_claim_not_uuid()),
            },
        };
        let (user, session) = state
            .db
            .call(move |connection| -> Result<_, AuthError> {
                let user = users::find_by_id(connection, &user_id)?
                    .ok_or_else(AuthError::user_not_found)?;
                let session = match session_id {
                    None => None,
                    Some(id) => Some(
                        sessions::find(connection, &id)?
                            .ok_or_else(AuthError::session_not_found)?,
                    ),
                };
                Ok((user, session))
            })
            .await?;
        Ok(SignedInUser {
            user,
            session,
            claims,
        })
    }
}

/// GoTrue's `(?i)^bearer (\S+$)`: the scheme, one space, then a token without whitespace.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_at_checked(7)?;
    let valid = scheme.eq_ignore_ascii_case("bearer ")
        && !token.is_empty()
        && !token.bytes().any(|byte| byte.is_ascii_whitespace());
    valid.then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn bearer_tokens_follow_gotrues_pattern() {
        assert_eq!(bearer_token(&headers("Bearer abc")), Some("abc"));
        assert_eq!(bearer_token(&headers("bEaReR abc")), Some("abc"));
        assert_eq!(bearer_token(&headers("Bearer ")), None);
        assert_eq!(bearer_token(&headers("Bearer  abc")), None);
        assert_eq!(bearer_token(&headers("Bearer a b")), None);
        assert_eq!(bearer_token(&headers("Basic abc")), None);
        assert_eq!(bearer_token(&HeaderMap::new()), None);
    }
}
