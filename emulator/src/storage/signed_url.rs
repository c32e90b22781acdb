//! Signed URLs: JWTs signed with the project's JWT secret, as Storage makes them. A download
//! token carries `url` (`bucket/path`) and `exp`; an upload token also `owner` and `upsert`, and
//! lives two hours. A token answers only for the object it names, only until it expires (no
//! clock skew allowed, as Storage's `jose`), and an upload token never serves a download.

use crate::keys::Keys;
use crate::storage::caller::jwt_error_message;
use crate::storage::error::StorageError;
use serde::Serialize;
use serde_json::Value;

/// How long a signed upload URL lasts (Storage's fixed two hours).
pub const UPLOAD_URL_SECONDS: i64 = 2 * 60 * 60;

#[derive(Serialize)]
struct DownloadClaims<'a> {
    url: &'a str,
    iat: i64,
    exp: i64,
}

#[derive(Serialize)]
struct UploadClaims<'a> {
    owner: Option<&'a str>,
    url: &'a str,
    upsert: bool,
    iat: i64,
    exp: i64,
}

/// What a verified upload token allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadGrant {
    pub owner: Option<String>,
    pub upsert: bool,
}

/// A download token for `url` (`bucket/path`), valid `expires_in` seconds from `now`.
pub fn sign_download(keys: &Keys, url: &str, now: i64, expires_in: i64) -> String {
    keys.sign(&DownloadClaims {
        url,
        iat: now,
        exp: now.saturating_add(expires_in),
    })
}

pub fn sign_upload(keys: &Keys, url: &str, owner: Option<&str>, upsert: bool, now: i64) -> String {
    keys.sign(&UploadClaims {
        owner,
        url,
        upsert,
        iat: now,
        exp: now + UPLOAD_URL_SECONDS,
    })
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
        .verify(token, now)
        .map_err(|error| StorageError::invalid_jwt(&jwt_error_message(&error)))?;
    // `Keys::verify` allows PostgREST's 30 s of skew; a signed URL allows none.
    match claims.get("exp").and_then(Value::as_i64) {
        Some(exp) if now < exp => {}
        Some(_) => {
            return Err(StorageError::invalid_jwt(&jwt_error_message(
                &crate::keys::JwtError::Expired,
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
    Ok(UploadGrant {
        owner: claims
            .get("owner")
            .and_then(Value::as_str)
            .map(str::to_owned),
        upsert,
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
        let upload = sign_upload(&keys, "b/a.png", Some("u1"), true, NOW);
        assert_eq!(
            verify_upload(&keys, &upload, "b/a.png", NOW),
            Ok(UploadGrant {
                owner: Some("u1".to_owned()),
                upsert: true
            })
        );
        assert!(verify_download(&keys, &upload, "b/a.png", NOW).is_err());
        let download = sign_download(&keys, "b/a.png", NOW, 60);
        assert!(verify_upload(&keys, &download, "b/a.png", NOW).is_err());
        assert!(verify_upload(&keys, &upload, "b/a.png", NOW + UPLOAD_URL_SECONDS).is_err());
    }
}
