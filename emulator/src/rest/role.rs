//! Who a PostgREST request runs as: the database role of the `Authorization: Bearer` JWT when a
//! bearer token is sent (PostgREST's rule), otherwise the API key's role; and what the token's
//! claims say of the account (`sub`, `aal`), which the migration's policies and functions read
//! through `auth.uid()` and `auth.jwt()`.

use crate::gateway::ApiKeyRole;
use crate::keys::{Keys, Role};
use crate::rest::error::RestError;
use axum::http::{header, HeaderMap};
use serde_json::{Map, Value};

/// The request's role and the claims the policies read. An API key carries no account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requester {
    pub role: Role,
    /// The token's `sub` (`auth.uid()`): the account's id.
    pub user_id: Option<String>,
    /// The token's `aal` (`auth.jwt() ->> 'aal'`): `aal2` once a second factor was passed.
    pub aal: Option<String>,
}

impl Requester {
    fn of_key(role: Role) -> Requester {
        Requester {
            role,
            user_id: None,
            aal: None,
        }
    }

    fn of_claims(role: Role, claims: &Map<String, Value>) -> Requester {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        Requester {
            role,
            user_id: text("sub"),
            aal: text("aal"),
        }
    }

    /// Signed in with a second factor in this session (`auth.jwt() ->> 'aal' = 'aal2'`).
    pub fn at_aal2(&self) -> bool {
        self.aal.as_deref() == Some("aal2")
    }
}

/// `now` is in Unix seconds.
pub fn requester(
    keys: &Keys,
    headers: &HeaderMap,
    api_key: ApiKeyRole,
    now: i64,
) -> Result<Requester, RestError> {
    let Some(token) = bearer_token(headers) else {
        return Ok(Requester::of_key(api_key.0));
    };
    let claims = keys.verify(token, now)?;
    let role = Keys::role_of(&claims)?;
    Ok(Requester::of_claims(role, &claims))
}

/// The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, as WAI's
/// `extractBearerAuth`); other schemes are not bearer tokens.
pub(crate) fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim_start_matches(' '))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(authorization).unwrap(),
        );
        headers
    }

    #[test]
    fn the_account_and_its_assurance_level_come_from_the_token() {
        let keys = Keys::new(crate::keys::DEFAULT_JWT_SECRET);
        let token = keys.sign(&serde_json::json!({
            "role": "authenticated", "sub": "6ba7b810-9dad-41d1-80b4-00c04fd430c8", "aal": "aal2",
        }));
        let with = |authorization: &str| {
            requester(&keys, &headers(authorization), ApiKeyRole(Role::Anon), 0).unwrap()
        };
        let signed_in = with(&format!("Bearer {token}"));
        assert_eq!(signed_in.role, Role::Authenticated);
        assert_eq!(
            signed_in.user_id.as_deref(),
            Some("6ba7b810-9dad-41d1-80b4-00c04fd430c8")
        );
        assert!(signed_in.at_aal2());
        let key = with("Basic x");
        assert_eq!(
            (key.role, key.at_aal2(), key.user_id),
            (Role::Anon, false, None)
        );
    }

    #[test]
    fn bearer_scheme_is_case_insensitive_and_others_are_ignored() {
        assert_eq!(bearer_token(&headers("Bearer abc")), Some("abc"));
        assert_eq!(bearer_token(&headers("bearer abc")), Some("abc"));
        assert_eq!(bearer_token(&headers("Bearer ")), Some(""));
        assert_eq!(bearer_token(&headers("Basic abc")), None);
        assert_eq!(bearer_token(&HeaderMap::new()), None);
    }
}
