//! The database role a PostgREST request runs as: the `Authorization: Bearer` JWT's role when a
//! bearer token is sent (PostgREST's rule), otherwise the API key's role.

use crate::gateway::ApiKeyRole;
use crate::keys::{Keys, Role};
use crate::rest::error::RestError;
use axum::http::{header, HeaderMap};

/// `now` is in Unix seconds.
pub fn request_role(
    keys: &Keys,
    headers: &HeaderMap,
    api_key: ApiKeyRole,
    now: i64,
) -> Result<Role, RestError> {
    let Some(token) = bearer_token(headers) else {
        return Ok(api_key.0);
    };
    let claims = keys.verify(token, now)?;
    Ok(Keys::role_of(&claims)?)
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
    fn bearer_scheme_is_case_insensitive_and_others_are_ignored() {
        assert_eq!(bearer_token(&headers("Bearer abc")), Some("abc"));
        assert_eq!(bearer_token(&headers("bearer abc")), Some("abc"));
        assert_eq!(bearer_token(&headers("Bearer ")), Some(""));
        assert_eq!(bearer_token(&headers("Basic abc")), None);
        assert_eq!(bearer_token(&HeaderMap::new()), None);
    }
}
