//! Signed URLs: JWTs signed with the project's JWT secret, as Storage makes them. A download
//! token carries `url` (`bucket/path`) and `exp`; an upload token also `owner`, `upsert` and an id
//! (`jti`), and lives two hours. A token answers only for the object it names, only until it
//! expires (no clock skew allowed, as Storage's `jose`), and an upload token never serves a
//! download. An upload token serves one upload: its id is spent when the upload commits
//! ([`crate::storage::store::spend_upload_token`]).
//!
//! Unlike hosted Storage's, these tokens carry their own audience ([`URL_TOKEN_AUDIENCE`]), so
//! one taken from a URL is no API key, bearer token or function caller.

use crate::keys::{JwtError, Keys, URL_TOKEN_AUDIENCE};
use crate::storage::caller::jwt_error_message;
use crate::storage::error::StorageError;
use serde::Serialize;
use serde_json::Value;

/// How long a signed upload URL lasts (Storage's fixed two hours).
pub const UPLOAD_URL_SECONDS: i64 = 2 * 60 * 60;

#[derive(Serialize)]
struct DownloadClaims<'a> {
    url: &'a str,
    aud: &'static str,
    iat: i64,
    exp: i64,
}

#[derive(Serialize)]
struct UploadClaims<'a> {
    owner: Option<&'a str>,
    url: &'a str,
    upsert: bool,
    aud: &'static str,
    jti: &'a str,
    iat: i64,
    exp: i64,
}

/// What a verified upload token allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadGrant {
    pub owner: Option<String>,
    pub upsert: bool,
    /// The token's id, spent by the upload it serves.
    pub id: String,
    /// When the token expires (Unix seconds): a spent id need not be kept past it.
    pub expires_at: i64,
}

/// A download token for `url` (`bucket/path`), valid `expires_in` seconds from `now`.
pub fn sign_download(keys: &Keys, url: &str, now: i64, expires_in: i64) -> String {
    keys.sign(&DownloadClaims {
        url,
        aud: URL_TOKEN_AUDIENCE,
        iat: now,
        exp: now.saturating_add(expires_in),
    })
}

/// An upload token for `url`, with a fresh id.
pub fn sign_upload(
    keys: &Keys,
    url: &str,
    owner: Option<&str>,
    upsert: bool,
    now: i64,
) -> Result<String, StorageError> {
    let id = crate::random::uuid()?.to_string();
    Ok(keys.sign(&UploadClaims {
        owner,
        url,
        upsert,
        aud: URL_TOKEN_AUDIENCE,
        jti: &id,
        iat: now,
        exp: now + UPLOAD_URL_SECONDS,
    }))
}

/// The token's claims if it is ours, unexpired and for `url`.
fn verify(
    keys: &Keys,
    token: &str,
    url: &str,
    now: i64,
) -> Result<serde_json::Map<String, Value>, StorageError> {
    if token.is_empty() {
        return Err(StorageError::missing_token());
    }
    let claims = keys
        .verify_url_token(token, now)
        .map_err(|error| match error {
            // Another of the project's tokens: valid, but for no object, as hosted Storage finds it.
            JwtError::WrongAudience => StorageError::invalid_signature(),
            error => StorageError::invalid_jwt(&jwt_error_message(&error)),
        })?;
    // `Keys::verify` allows PostgREST's 30 s of skew; a signed URL allows none.
    match claims.get("exp").and_then(Value::as_i64) {
        Some(exp) if now < exp => {}
        Some(_) => {
            return Err(StorageError::invalid_jwt(&jwt_error_message(
                &JwtError::Expired,
            )))
        }
        None => return Err(StorageError::invalid_signature()),
    }
    if claims.get("url").and_then(Value::as_str) != Some(url) {
        return Err(StorageError::invalid_signature());
    }
    Ok(claims)
}

/// Checks a download token for `url`.
pub fn verify_download(keys: &Keys, token: &str, url: &str, now: i64) -> Result<(), StorageError> {
    let claims = verify(keys, token, url, now)?;
    if claims.contains_key("upsert") {
        return Err(StorageError::invalid_signature());
    }
    Ok(())
}

/// Checks an upload token for `url` and returns what it allows.
pub fn verify_upload(
    keys: &Keys,
    token: &str,
    url: &str,
    now: i64,
) -> Result<UploadGrant, StorageError> {
    let claims = verify(keys, token, url, now)?;
    let upsert = claims
        .get("upsert")
        .and_then(Value::as_bool)
        .ok_or_else(StorageError::invalid_signature)?;
    let id = claims
        .get("jti")
        .and_then(Value::as_str)
        .ok_or_else(StorageError::invalid_signature)?;
    Ok(UploadGrant {
        owner: claims
            .get("owner")
            .and_then(Value::as_str)
            .map(str::to_owned),
        upsert,
        id: id.to_owned(),
        expires_at: claims.get("exp").and_then(Value::as_i64).unwrap_or(now),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::DEFAULT_JWT_SECRET;

    const NOW: i64 = 1_800_000_000;

    #[test]
    fn a_download_token_serves_its_object_until_it_expires() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let token = sign_download(&keys, "b/a.png", NOW, 60);
        assert_eq!(verify_download(&keys, &token, "b/a.png", NOW + 59), Ok(()));
        let expired = verify_download(&keys, &token, "b/a.png", NOW + 60).unwrap_err();
        assert_eq!(
            (expired.code, expired.message.as_str()),
            ("InvalidJWT", "\"exp\" claim timestamp check failed")
        );
        let other = verify_download(&keys, &token, "b/b.png", NOW).unwrap_err();
        assert_eq!(other.code, "InvalidSignature");
    }

    #[test]
    fn tampered_and_foreign_tokens_are_refused() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let token = sign_download(&keys, "b/a.png", NOW, 60);
        // The signature's first character carries six whole bits.
        let at = token.rfind('.').unwrap() + 1;
        let replacement = if &token[at..=at] == "A" { "B" } else { "A" };
        let tampered = format!("{}{replacement}{}", &token[..at], &token[at + 1..]);
        let refused = verify_download(&keys, &tampered, "b/a.png", NOW).unwrap_err();
        assert_eq!(
            (refused.code, refused.message.as_str()),
            ("InvalidJWT", "signature verification failed")
        );
        let foreign = Keys::new("another-secret-that-is-at-least-32-characters");
        let token = sign_download(&foreign, "b/a.png", NOW, 60);
        assert!(verify_download(&keys, &token, "b/a.png", NOW).is_err());
        assert_eq!(
            verify_download(&keys, "", "b/a.png", NOW)
                .unwrap_err()
                .message,
            "Missing token"
        );
    }

    #[test]
    fn upload_and_download_tokens_do_not_stand_in_for_each_other() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let upload = sign_upload(&keys, "b/a.png", Some("u1"), true, NOW).unwrap();
        let grant = verify_upload(&keys, &upload, "b/a.png", NOW).unwrap();
        assert_eq!(
            (grant.owner.as_deref(), grant.upsert, grant.expires_at),
            (Some("u1"), true, NOW + UPLOAD_URL_SECONDS)
        );
        let again = sign_upload(&keys, "b/a.png", Some("u1"), true, NOW).unwrap();
        assert_ne!(
            verify_upload(&keys, &again, "b/a.png", NOW).unwrap().id,
            grant.id,
            "each upload URL has its own id"
        );
        assert!(verify_download(&keys, &upload, "b/a.png", NOW).is_err());
        let download = sign_download(&keys, "b/a.png", NOW, 60);
        assert!(verify_upload(&keys, &download, "b/a.png", NOW).is_err());
        assert!(verify_upload(&keys, &upload, "b/a.png", NOW + UPLOAD_URL_SECONDS).is_err());
    }

    #[test]
    fn url_tokens_are_no_credentials_and_credentials_no_url_tokens() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let download = sign_download(&keys, "b/a.png", NOW, 60);
        let upload = sign_upload(&keys, "b/a.png", None, false, NOW).unwrap();
        for token in [&download, &upload] {
            assert_eq!(keys.verify(token, NOW), Err(JwtError::WrongAudience));
        }
        // A token with the claims of a signed URL but not its audience serves nothing.
        let forged = keys.sign(&serde_json::json!({"url": "b/a.png", "iat": NOW, "exp": NOW + 60}));
        assert!(verify_download(&keys, &forged, "b/a.png", NOW).is_err());
        assert!(verify_download(&keys, keys.anon_key(), "b/a.png", NOW).is_err());
    }
}
