//! `verify_jwt`: the function is only called with a bearer JWT signed with the project's secret,
//! not expired (no clock skew, as `jose` verifies on the hosted platform) and naming one of the
//! project's roles (`anon`, `authenticated`, `service_role`): a user's access token, or the legacy
//! anon and service_role keys. A token naming no role, or one made for a signed URL, is nobody's.
//! A new-format key is no JWT, so it never passes: functions that publishable-key clients call
//! without a session need `verify_jwt = false`.

use crate::functions::error::FunctionsError;
use crate::keys::Keys;
use axum::http::{header, HeaderMap};

/// Checks the request's `Authorization` header; `now` is in Unix seconds.
pub fn check(keys: &Keys, headers: &HeaderMap, now: i64) -> Result<(), FunctionsError> {
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or(FunctionsError::NoAuthHeader)?;
    let token = value
        .to_str()
        .ok()
        .and_then(|value| value.trim().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .ok_or(FunctionsError::InvalidJwt)?;
    let claims = keys
        .verify(token, now)
        .map_err(|_| FunctionsError::InvalidJwt)?;
    Keys::named_role(&claims).map_err(|_| FunctionsError::InvalidJwt)?;
    // `Keys::verify` allows PostgREST's 30 s of skew on `exp`; a function's caller gets none.
    let expired = claims
        .get("exp")
        .and_then(|exp| exp.as_i64().or_else(|| exp.as_f64().map(|exp| exp as i64)))
        .is_some_and(|exp| now >= exp);
    if expired {
        return Err(FunctionsError::InvalidJwt);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::DEFAULT_JWT_SECRET;
    use axum::http::HeaderValue;

    fn with_authorization(value: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(value) = value {
            headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    #[test]
    fn only_project_jwts_pass() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let other = Keys::new("another secret of at least thirty-two characters");
        let check = |value: Option<&str>| check(&keys, &with_authorization(value), 0);
        assert_eq!(check(None), Err(FunctionsError::NoAuthHeader));
        assert_eq!(check(Some(&format!("Bearer {}", keys.anon_key()))), Ok(()));
        assert_eq!(
            check(Some(&format!("bearer  {}", keys.service_role_key()))),
            Ok(())
        );
        for bad in [
            format!("Bearer {}", keys.publishable_key()),
            format!("Bearer {}", keys.secret_key()),
            format!("Bearer {}", other.anon_key()),
            format!("Basic {}", keys.anon_key()),
            keys.anon_key().to_owned(),
            "Bearer ".to_owned(),
        ] {
            assert_eq!(check(Some(&bad)), Err(FunctionsError::InvalidJwt), "{bad}");
        }
    }
}
