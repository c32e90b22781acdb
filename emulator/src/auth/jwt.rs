//! Access tokens: GoTrue's claims (tokens/service.go `AccessTokenClaims`), signed HS256 with the
//! project's JWT secret, and their verification when one comes back as a bearer token
//! (api/auth.go `parseJWTClaims`: golang-jwt, HS256 only, no leeway on `exp`/`nbf`).

use crate::auth::error::AuthError;
use crate::keys::{JwtError, Keys};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::Serialize;
use serde_json::{Map, Value};

/// The claims, in GoTrue's order (golang-jwt's registered claims first).
#[derive(Debug, Serialize)]
pub struct AccessClaims<'a> {
    pub iss: &'a str,
    pub sub: &'a str,
    pub aud: &'static str,
    pub exp: i64,
    pub iat: i64,
    pub email: &'a str,
    pub phone: &'static str,
    pub app_metadata: &'a Value,
    pub user_metadata: &'a Value,
    pub role: &'static str,
    pub aal: &'a str,
    pub amr: Vec<AmrEntry>,
    pub session_id: &'a str,
    pub is_anonymous: bool,
}

/// One authentication method and when it happened (Unix seconds); newest first in `amr`.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct AmrEntry {
    pub method: String,
    pub timestamp: i64,
}

/// What the auth routes read from a verified bearer token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BearerClaims {
    pub sub: Option<String>,
    pub session_id: Option<String>,
    pub aud: Vec<String>,
    pub is_anonymous: bool,
}

/// Verifies `token` as GoTrue does and returns its claims. `now` is in Unix seconds.
pub fn verify_bearer(keys: &Keys, token: &str, now: i64) -> Result<BearerClaims, AuthError> {
    if let Some(algorithm) = header_algorithm(token) {
        if algorithm != "HS256" {
            return Err(AuthError::bad_jwt(&format!(
                "token signature is invalid: signing method {algorithm} is invalid"
            )));
        }
    }
    let claims = keys
        .verify(token, now)
        .map_err(|error| AuthError::bad_jwt(golang_jwt_reason(&error)))?;
    // PostgREST's verification allows 30 s of skew; golang-jwt allows none.
    if time_claim(&claims, "exp").is_some_and(|exp| now >= exp) {
        return Err(AuthError::bad_jwt(golang_jwt_reason(&JwtError::Expired)));
    }
    if time_claim(&claims, "nbf").is_some_and(|nbf| now < nbf) {
        return Err(AuthError::bad_jwt(golang_jwt_reason(
            &JwtError::NotYetValid,
        )));
    }
    let malformed = || AuthError::bad_jwt(golang_jwt_reason(&JwtError::ClaimsNotAnObject));
    let text = |name: &str| match claims.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(malformed()),
    };
    let aud = match claims.get("aud") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(audience)) => vec![audience.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| item.as_str().map(str::to_owned))
            .collect(),
        Some(_) => return Err(malformed()),
    };
    let is_anonymous = match claims.get("is_anonymous") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        Some(_) => return Err(malformed()),
    };
    Ok(BearerClaims {
        sub: text("sub")?.filter(|sub| !sub.is_empty()),
        session_id: text("session_id")?,
        aud,
        is_anonymous,
    })
}

fn header_algorithm(token: &str) -> Option<String> {
    let header = token.split('.').next()?;
    let header: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).ok()?).ok()?;
    header.get("alg")?.as_str().map(str::to_owned)
}

fn time_claim(claims: &Map<String, Value>, name: &str) -> Option<i64> {
    let number = claims.get(name)?.as_number()?;
    number
        .as_i64()
        .or_else(|| number.as_f64().map(|float| float as i64))
}

/// golang-jwt v5's wording for each failure.
fn golang_jwt_reason(error: &JwtError) -> &'static str {
    match error {
        JwtError::Empty | JwtError::UnexpectedParts(_) => {
            "token is malformed: token contains an invalid number of segments"
        }
        JwtError::Undecodable => "token is malformed: could not base64 decode header",
        JwtError::BadAlgorithm => "token signature is invalid: signing method is invalid",
        JwtError::BadSignature => "token signature is invalid: signature is invalid",
        JwtError::Expired => "token has invalid claims: token is expired",
        JwtError::WrongAudience => "token has invalid claims: token has invalid audience",
        JwtError::NotYetValid => "token has invalid claims: token is not valid yet",
        JwtError::IssuedInFuture => "token has invalid claims: token used before issued",
        JwtError::ClaimsNotAnObject
        | JwtError::ClaimNotNumber(_)
        | JwtError::AudienceNotStrings
        | JwtError::UnknownRole(_)
        | JwtError::NoRole => "token is malformed: could not JSON decode claim",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::DEFAULT_JWT_SECRET;
    use serde_json::json;

    const NOW: i64 = 1_700_000_000;

    #[test]
    fn claims_serialise_in_gotrue_order() {
        let metadata = json!({"provider": "email"});
        let claims = AccessClaims {
            iss: "http://127.0.0.1:1/auth/v1",
            sub: "u",
            aud: "authenticated",
            exp: 2,
            iat: 1,
            email: "e",
            phone: "",
            app_metadata: &metadata,
            user_metadata: &metadata,
            role: "authenticated",
            aal: "aal1",
            amr: vec![AmrEntry {
                method: "password".into(),
                timestamp: 1,
            }],
            session_id: "s",
            is_anonymous: false,
        };
        let text = serde_json::to_string(&claims).unwrap();
        let keys = [
            "iss",
            "sub",
            "aud",
            "exp",
            "iat",
            "email",
            "phone",
            "app_metadata",
            "user_metadata",
            "role",
            "aal",
            "amr",
            "session_id",
            "is_anonymous",
        ];
        let positions: Vec<usize> = keys
            .iter()
            .map(|key| text.find(&format!("\"{key}\":")).unwrap())
            .collect();
        assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "{text}");
    }

    #[test]
    fn expiry_has_no_leeway() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let token = keys.sign(&json!({"sub": "x", "exp": NOW}));
        assert_eq!(
            verify_bearer(&keys, &token, NOW),
            Err(AuthError::bad_jwt(
                "token has invalid claims: token is expired"
            ))
        );
        assert!(verify_bearer(&keys, &token, NOW - 1).is_ok());
    }

    #[test]
    fn only_hs256_is_accepted() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"HS512","typ":"JWT"}"#);
        let token = format!("{header}.e30.c2ln");
        assert_eq!(
            verify_bearer(&keys, &token, NOW),
            Err(AuthError::bad_jwt(
                "token signature is invalid: signing method HS512 is invalid"
            ))
        );
    }

    #[test]
    fn claim_shapes_are_read_leniently_where_go_is() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let token = keys.sign(&json!({"sub": "", "aud": ["a", "b"], "session_id": null}));
        assert_eq!(
            verify_bearer(&keys, &token, NOW).unwrap(),
            BearerClaims {
                sub: None,
                session_id: None,
                aud: vec!["a".into(), "b".into()],
                is_anonymous: false,
            }
        );
        let token = keys.sign(&json!({"sub": 5}));
        assert_eq!(
            verify_bearer(&keys, &token, NOW).unwrap_err().code,
            "bad_jwt"
        );
    }
}
