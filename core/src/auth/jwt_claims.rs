//! Reading (never verifying) an access token's claims, as auth-js `decodeJWT` does for
//! `setSession` (the `exp`) and `getAuthenticatorAssuranceLevel` (`aal`, `amr`). The server
//! verifies the signature on every call; the client only needs to know what the token says.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::Deserialize;
use serde_json::Value;

use super::error::AuthError;

/// The claims the client reads; others are ignored.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct JwtClaims {
    #[serde(default)]
    pub sub: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    /// Unix seconds.
    #[serde(default)]
    pub exp: Option<f64>,
    /// `aal1` or `aal2`.
    #[serde(default)]
    pub aal: Option<String>,
    /// Authentication methods, newest first: `{method, timestamp}` objects (or RFC 8176 strings
    /// from custom hooks), kept as the token has them.
    #[serde(default)]
    pub amr: Option<Vec<Value>>,
    #[serde(default)]
    pub session_id: Option<String>,
}

/// The payload of a compact JWT: three base64url parts without padding, the middle one JSON.
/// Decoded only, never verified: the server verifies.
///
/// ```
/// use geocache_core::auth::decode_jwt_claims;
///
/// // {"alg":"HS256"} . {"sub":"u1","exp":1700000000,"aal":"aal1"} . signature
/// let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSIsImV4cCI6MTcwMDAwMDAwMCwiYWFsIjoiYWFsMSJ9.c2ln";
/// let claims = decode_jwt_claims(token).expect("a well-formed token");
/// assert_eq!(claims.sub.as_deref(), Some("u1"));
/// assert_eq!(claims.exp, Some(1_700_000_000.0));
/// assert!(decode_jwt_claims("not a jwt").is_err());
/// ```
pub fn decode_jwt_claims(token: &str) -> Result<JwtClaims, AuthError> {
    let invalid = |message: &str| AuthError::InvalidJwt {
        message: message.to_owned(),
    };
    let parts: Vec<&str> = token.split('.').collect();
    let [_, payload, _] = parts.as_slice() else {
        return Err(invalid("Invalid JWT structure"));
    };
    if !parts.iter().all(|part| is_base64url(part)) {
        return Err(invalid("JWT not in base64url format"));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| invalid("JWT not in base64url format"))?;
    serde_json::from_slice(&bytes).map_err(|error| AuthError::InvalidJwt {
        message: format!("JWT payload is not a JSON object of claims: {error}"),
    })
}

/// auth-js `BASE64URL_REGEX`: URL-safe alphabet, no padding, a length no base64 text can have
/// (4n + 1) refused.
fn is_base64url(part: &str) -> bool {
    part.len() % 4 != 1
        && part
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// An unsigned token with the given claims (the signature is never checked here).
    pub(crate) fn token(claims: &Value) -> String {
        let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"HS256","typ":"JWT"}"#);
        let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
        format!("{header}.{payload}.c2ln")
    }

    #[test]
    fn claims_are_read_from_the_payload() {
        let claims = decode_jwt_claims(&token(&json!({
            "sub": "u1", "role": "authenticated", "exp": 1_700_003_600, "aal": "aal2",
            "amr": [{"method": "totp", "timestamp": 2}, {"method": "password", "timestamp": 1}],
            "session_id": "s1", "email": "ignored@example.com"
        })))
        .unwrap();
        assert_eq!(claims.sub.as_deref(), Some("u1"));
        assert_eq!(claims.exp, Some(1_700_003_600.0));
        assert_eq!(claims.aal.as_deref(), Some("aal2"));
        assert_eq!(
            claims.amr.unwrap()[0],
            json!({"method": "totp", "timestamp": 2})
        );
        assert_eq!(claims.session_id.as_deref(), Some("s1"));
    }

    #[test]
    fn missing_claims_are_none() {
        assert_eq!(
            decode_jwt_claims(&token(&json!({}))).unwrap(),
            JwtClaims::default()
        );
    }

    #[test]
    fn malformed_tokens_are_invalid_jwt_errors() {
        let good = token(&json!({"exp": 1}));
        let cases = [
            ("", "Invalid JWT structure"),
            ("a.b", "Invalid JWT structure"),
            ("a.b.c.d", "Invalid JWT structure"),
            ("a+b.e30.c", "JWT not in base64url format"),
            ("eyJ9.e30=.c", "JWT not in base64url format"),
            ("eyJ9.abcde.c", "JWT not in base64url format"),
        ];
        for (token, message) in cases {
            let error = decode_jwt_claims(token).unwrap_err();
            assert_eq!(
                error,
                AuthError::InvalidJwt {
                    message: message.into()
                },
                "{token}"
            );
            assert_eq!(
                (error.name(), error.code()),
                ("AuthInvalidJwtError", Some("invalid_jwt"))
            );
        }
        let not_json = format!("e30.{}.c2ln", URL_SAFE_NO_PAD.encode("nope"));
        let error = decode_jwt_claims(&not_json).unwrap_err();
        assert!(error
            .to_string()
            .starts_with("JWT payload is not a JSON object of claims"));
        let wrong_type = token(&json!({"exp": "soon"}));
        assert_eq!(
            decode_jwt_claims(&wrong_type).unwrap_err().name(),
            "AuthInvalidJwtError"
        );
        assert!(decode_jwt_claims(&good).is_ok());
    }
}
