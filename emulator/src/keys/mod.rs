//! API keys and JWTs: the deterministic anon/service_role keys printed at start, the new-format
//! publishable and secret keys ([`api_keys`]), and PostgREST's verification of a bearer token
//! (signature, `exp`/`nbf`/`iat` with 30 s of skew, `aud` shape).
//!
//! Every token the emulator signs is signed with the one project secret, so a token that is not a
//! credential says so in its audience: a signed URL's token carries [`URL_TOKEN_AUDIENCE`], which
//! [`Keys::verify`] refuses, so it can stand in for no API key, bearer or function caller; only
//! [`Keys::verify_url_token`] takes it.

pub mod api_keys;
mod hmac_provider;
mod role;

pub use role::{Anonymity, Role};

use crate::keys::api_keys::ApiKeys;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Validation};
use serde::Serialize;
use serde_json::{Map, Value};

/// The Supabase CLI's default JWT secret, so the default keys equal the well-known demo keys.
pub const DEFAULT_JWT_SECRET: &str = "super-secret-jwt-token-with-at-least-32-characters-long";

/// `exp` of the Supabase CLI's demo keys.
const DEMO_KEY_EXPIRY: i64 = 1_983_812_996;
const DEMO_KEY_ISSUER: &str = "supabase-demo";

/// PostgREST tolerates this much clock skew on `exp`, `nbf` and `iat`.
const ALLOWED_SKEW_SECONDS: i64 = 30;

/// The `aud` of a signed URL's token (Storage's download and upload URLs): it grants one object's
/// URL and is nobody's credential.
pub const URL_TOKEN_AUDIENCE: &str = "storage-signed-url";

/// Why a JWT was refused; each service words it its own way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JwtError {
    Empty,
    UnexpectedParts(usize),
    Undecodable,
    BadAlgorithm,
    BadSignature,
    Expired,
    NotYetValid,
    IssuedInFuture,
    ClaimsNotAnObject,
    ClaimNotNumber(&'static str),
    AudienceNotStrings,
    /// A valid token whose `role` is not one of the emulator's roles.
    UnknownRole(String),
    /// A token without a `role` where one must be named (an API key, a function's caller).
    NoRole,
    /// A signed URL's token offered as a credential, or another token offered as a signed URL's.
    WrongAudience,
}

#[derive(Serialize)]
struct DemoClaims {
    iss: &'static str,
    role: &'static str,
    exp: i64,
}

/// The signing secret, the two legacy API keys signed with it and the two new-format keys.
pub struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    anon_key: String,
    service_role_key: String,
    api_keys: ApiKeys,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Keys { .. }")
    }
}

impl Keys {
    pub fn new(secret: &str) -> Keys {
        hmac_provider::install();
        let mut keys = Keys {
            encoding: EncodingKey::from_secret(secret.as_bytes()),
            decoding: DecodingKey::from_secret(secret.as_bytes()),
            anon_key: String::new(),
            service_role_key: String::new(),
            api_keys: ApiKeys::derive(secret),
        };
        keys.anon_key = keys.sign_demo_key(Role::Anon);
        keys.service_role_key = keys.sign_demo_key(Role::ServiceRole);
        keys
    }

    pub fn anon_key(&self) -> &str {
        &self.anon_key
    }

    pub fn service_role_key(&self) -> &str {
        &self.service_role_key
    }

    /// Replaces the derived publishable and/or secret key.
    pub fn with_api_keys(self, publishable: Option<String>, secret: Option<String>) -> Keys {
        Keys {
            api_keys: self.api_keys.with_explicit(publishable, secret),
            ..self
        }
    }

    /// `sb_publishable_...`: the anon role.
    pub fn publishable_key(&self) -> &str {
        self.api_keys.publishable()
    }

    /// `sb_secret_...`: the service_role role.
    pub fn secret_key(&self) -> &str {
        self.api_keys.secret()
    }

    /// The role of a new-format key of this project, if it is one.
    pub fn new_format_key_role(&self, key: &str) -> Option<Role> {
        self.api_keys.role_of(key)
    }

    /// The legacy JWT key of a key role, which the gateway hands on in place of a new-format key.
    pub fn legacy_key(&self, role: Role) -> &str {
        match role {
            Role::ServiceRole => &self.service_role_key,
            Role::Anon | Role::Authenticated => &self.anon_key,
        }
    }

    fn sign_demo_key(&self, role: Role) -> String {
        self.sign(&DemoClaims {
            iss: DEMO_KEY_ISSUER,
            role: role.name(),
            exp: DEMO_KEY_EXPIRY,
        })
    }

    /// Signs claims with HS256 under the header `{"alg":"HS256","typ":"JWT"}`, byte for byte the
    /// header of Supabase's keys (jsonwebtoken's own `Header` would serialise `typ` first).
    pub fn sign(&self, claims: &impl Serialize) -> String {
        const HEADER: &str = r#"{"alg":"HS256","typ":"JWT"}"#;
        let claims =
            serde_json::to_vec(claims).expect("claims serialise: JSON objects with string keys");
        let message = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(HEADER),
            URL_SAFE_NO_PAD.encode(claims)
        );
        let signature =
            jsonwebtoken::crypto::sign(message.as_bytes(), &self.encoding, Algorithm::HS256)
                .expect("HMAC signing has no failure mode once the provider is installed");
        format!("{message}.{signature}")
    }

    /// Verifies a token as PostgREST does and returns its claims; a signed URL's token is no
    /// credential and is refused. `now` is in Unix seconds.
    pub fn verify(&self, token: &str, now: i64) -> Result<Map<String, Value>, JwtError> {
        let claims = self.decode(token, now)?;
        if has_audience(&claims, URL_TOKEN_AUDIENCE) {
            return Err(JwtError::WrongAudience);
        }
        Ok(claims)
    }

    /// Verifies a signed URL's token (one with [`URL_TOKEN_AUDIENCE`]) and returns its claims.
    pub fn verify_url_token(&self, token: &str, now: i64) -> Result<Map<String, Value>, JwtError> {
        let claims = self.decode(token, now)?;
        if !has_audience(&claims, URL_TOKEN_AUDIENCE) {
            return Err(JwtError::WrongAudience);
        }
        Ok(claims)
    }

    /// The signature, time and shape checks every token passes.
    fn decode(&self, token: &str, now: i64) -> Result<Map<String, Value>, JwtError> {
        if token.is_empty() {
            return Err(JwtError::Empty);
        }
        let parts = token.split('.').count();
        if parts != 3 {
            return Err(JwtError::UnexpectedParts(parts));
        }
        check_header(token)?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = vec![Algorithm::HS256, Algorithm::HS384, Algorithm::HS512];
        validation.required_spec_claims.clear();
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.validate_aud = false;
        let claims = match jsonwebtoken::decode::<Value>(token, &self.decoding, &validation) {
            Ok(data) => data.claims,
            Err(error) => return Err(classify(error.kind())),
        };
        let Value::Object(claims) = claims else {
            return Err(JwtError::ClaimsNotAnObject);
        };
        check_time_claim(
            &claims,
            "exp",
            |exp| now <= exp.saturating_add(ALLOWED_SKEW_SECONDS),
            JwtError::Expired,
        )?;
        check_time_claim(
            &claims,
            "nbf",
            |nbf| now >= nbf.saturating_sub(ALLOWED_SKEW_SECONDS),
            JwtError::NotYetValid,
        )?;
        check_time_claim(
            &claims,
            "iat",
            |iat| now >= iat.saturating_sub(ALLOWED_SKEW_SECONDS),
            JwtError::IssuedInFuture,
        )?;
        match claims.get("aud") {
            None | Some(Value::Null | Value::String(_)) => {}
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {}
            Some(_) => return Err(JwtError::AudienceNotStrings),
        }
        Ok(claims)
    }

    /// The role a verified bearer token runs as: its `role` claim, `anon` when absent (PostgREST's
    /// `db-anon-role`), and an error for a role the emulator does not have. What stands for a key
    /// (an API key, a function's caller) needs the claim itself: [`Keys::named_role`].
    pub fn role_of(claims: &Map<String, Value>) -> Result<Role, JwtError> {
        match claims.get("role") {
            None => Ok(Role::Anon),
            Some(Value::String(name)) => {
                Role::from_name(name).ok_or_else(|| JwtError::UnknownRole(name.clone()))
            }
            Some(other) => Err(JwtError::UnknownRole(other.to_string())),
        }
    }

    /// The role a token names in its `role` claim, which must be one of the emulator's roles; a
    /// token without one names none, so it is not the anon key.
    pub fn named_role(claims: &Map<String, Value>) -> Result<Role, JwtError> {
        match claims.get("role") {
            None => Err(JwtError::NoRole),
            Some(_) => Keys::role_of(claims),
        }
    }
}

/// Whether `aud` is `audience` or a list holding it.
fn has_audience(claims: &Map<String, Value>, audience: &str) -> bool {
    match claims.get("aud") {
        Some(Value::String(aud)) => aud == audience,
        Some(Value::Array(items)) => items.iter().any(|item| item.as_str() == Some(audience)),
        _ => false,
    }
}

fn check_time_claim(
    claims: &Map<String, Value>,
    claim: &'static str,
    is_valid: impl Fn(i64) -> bool,
    invalid: JwtError,
) -> Result<(), JwtError> {
    match claims.get(claim) {
        None => Ok(()),
        Some(Value::Number(number)) => {
            // Fractional or huge numbers are truncated/saturated, as PostgREST's bounded read does.
            let seconds = number
                .as_i64()
                .or_else(|| number.as_f64().map(|float| float as i64))
                .unwrap_or(i64::MAX);
            if is_valid(seconds) {
                Ok(())
            } else {
                Err(invalid)
            }
        }
        Some(_) => Err(JwtError::ClaimNotNumber(claim)),
    }
}

/// The header must decode and name an HMAC algorithm: `none` and public-key algorithms cannot
/// be verified with a shared secret.
fn check_header(token: &str) -> Result<(), JwtError> {
    let header = token
        .split('.')
        .next()
        .expect("split yields at least one piece");
    let header: Value = URL_SAFE_NO_PAD
        .decode(header)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or(JwtError::Undecodable)?;
    match header.get("alg").and_then(Value::as_str) {
        Some("HS256" | "HS384" | "HS512") => Ok(()),
        Some(_) => Err(JwtError::BadAlgorithm),
        None => Err(JwtError::Undecodable),
    }
}

fn classify(kind: &ErrorKind) -> JwtError {
    match kind {
        ErrorKind::InvalidSignature => JwtError::BadSignature,
        ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName => JwtError::BadAlgorithm,
        // The header was checked already, so a JSON failure is in the claims.
        ErrorKind::Json(_) => JwtError::ClaimsNotAnObject,
        _ => JwtError::Undecodable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The local Supabase demo keys, as printed by `supabase status`.
    const DEMO_ANON_KEY: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0";
    const DEMO_SERVICE_ROLE_KEY: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU";
    const NOW: i64 = 1_700_000_000;

    #[test]
    fn default_secret_yields_the_supabase_demo_keys() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        assert_eq!(keys.anon_key(), DEMO_ANON_KEY);
        assert_eq!(keys.service_role_key(), DEMO_SERVICE_ROLE_KEY);
    }

    #[test]
    fn keys_depend_on_the_secret() {
        let other = Keys::new("another-secret-that-is-at-least-32-characters");
        assert_ne!(other.anon_key(), DEMO_ANON_KEY);
        assert_eq!(
            Keys::new(DEFAULT_JWT_SECRET).verify(other.anon_key(), NOW),
            Err(JwtError::BadSignature)
        );
    }

    #[test]
    fn own_keys_verify_with_their_roles() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let anon = keys.verify(keys.anon_key(), NOW).unwrap();
        let service = keys.verify(keys.service_role_key(), NOW).unwrap();
        assert_eq!(Keys::role_of(&anon), Ok(Role::Anon));
        assert_eq!(Keys::role_of(&service), Ok(Role::ServiceRole));
    }

    #[test]
    fn time_claims_allow_thirty_seconds_of_skew() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let expired_just_now = keys.sign(&json!({"role": "anon", "exp": NOW - 30}));
        let expired = keys.sign(&json!({"role": "anon", "exp": NOW - 31}));
        let not_yet = keys.sign(&json!({"role": "anon", "nbf": NOW + 31}));
        let future_iat = keys.sign(&json!({"role": "anon", "iat": NOW + 31}));
        assert!(keys.verify(&expired_just_now, NOW).is_ok());
        assert_eq!(keys.verify(&expired, NOW), Err(JwtError::Expired));
        assert_eq!(keys.verify(&not_yet, NOW), Err(JwtError::NotYetValid));
        assert_eq!(keys.verify(&future_iat, NOW), Err(JwtError::IssuedInFuture));
    }

    #[test]
    fn extreme_time_claims_saturate_instead_of_overflowing() {
        // Found by fuzzing: `exp + skew` overflowed (a panic in debug builds, and in release a
        // far-future token read as expired).
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let far_future = keys.sign(&json!({"role": "anon", "exp": 1e308, "iat": -1e308}));
        assert!(keys.verify(&far_future, NOW).is_ok());
        let far_past_nbf = keys.sign(&json!({"role": "anon", "nbf": i64::MIN}));
        assert!(keys.verify(&far_past_nbf, NOW).is_ok());
        let max_exp = keys.sign(&json!({"role": "anon", "exp": i64::MAX}));
        assert!(keys.verify(&max_exp, NOW).is_ok());
    }

    #[test]
    fn claim_shapes_are_checked() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let exp_text = keys.sign(&json!({"exp": "tomorrow"}));
        let aud_number = keys.sign(&json!({"aud": 5}));
        let aud_list = keys.sign(&json!({"aud": ["a", "b"]}));
        let not_object = keys.sign(&json!(["role", "anon"]));
        assert_eq!(
            keys.verify(&exp_text, NOW),
            Err(JwtError::ClaimNotNumber("exp"))
        );
        assert_eq!(
            keys.verify(&aud_number, NOW),
            Err(JwtError::AudienceNotStrings)
        );
        assert!(keys.verify(&aud_list, NOW).is_ok());
        assert_eq!(
            keys.verify(&not_object, NOW),
            Err(JwtError::ClaimsNotAnObject)
        );
    }

    #[test]
    fn malformed_tokens_are_refused() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        assert_eq!(keys.verify("", NOW), Err(JwtError::Empty));
        assert_eq!(keys.verify("abc", NOW), Err(JwtError::UnexpectedParts(1)));
        assert_eq!(
            keys.verify("a.b.c.d", NOW),
            Err(JwtError::UnexpectedParts(4))
        );
        assert_eq!(keys.verify("!!.??.**", NOW), Err(JwtError::Undecodable));
    }

    #[test]
    fn unsigned_and_foreign_algorithms_are_refused() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let claims = URL_SAFE_NO_PAD.encode(r#"{"role":"service_role"}"#);
        let none = format!(
            "{}.{claims}.",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#)
        );
        let rs256 = format!(
            "{}.{claims}.c2ln",
            URL_SAFE_NO_PAD.encode(r#"{"alg":"RS256","typ":"JWT"}"#)
        );
        assert_eq!(keys.verify(&none, NOW), Err(JwtError::BadAlgorithm));
        assert_eq!(keys.verify(&rs256, NOW), Err(JwtError::BadAlgorithm));
    }

    #[test]
    fn other_hmac_algorithms_verify_with_the_same_secret() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"HS512","typ":"JWT"}"#);
        let claims = URL_SAFE_NO_PAD.encode(r#"{"role":"authenticated"}"#);
        let message = format!("{header}.{claims}");
        let signature = jsonwebtoken::crypto::sign(
            message.as_bytes(),
            &EncodingKey::from_secret(DEFAULT_JWT_SECRET.as_bytes()),
            Algorithm::HS512,
        )
        .unwrap();
        let claims = keys.verify(&format!("{message}.{signature}"), NOW).unwrap();
        assert_eq!(Keys::role_of(&claims), Ok(Role::Authenticated));
    }

    #[test]
    fn tampered_claims_fail_the_signature() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let mut parts: Vec<String> = keys.anon_key().split('.').map(str::to_owned).collect();
        parts[1] = URL_SAFE_NO_PAD
            .encode(r#"{"iss":"supabase-demo","role":"service_role","exp":1983812996}"#);
        assert_eq!(
            keys.verify(&parts.join("."), NOW),
            Err(JwtError::BadSignature)
        );
    }

    #[test]
    fn roles_come_from_the_role_claim() {
        let claims = |value: Value| value.as_object().cloned().unwrap();
        assert_eq!(Keys::role_of(&claims(json!({}))), Ok(Role::Anon));
        assert_eq!(
            Keys::role_of(&claims(json!({"role": "authenticated"}))),
            Ok(Role::Authenticated)
        );
        assert_eq!(
            Keys::role_of(&claims(json!({"role": "postgres"}))),
            Err(JwtError::UnknownRole("postgres".into()))
        );
    }
}
