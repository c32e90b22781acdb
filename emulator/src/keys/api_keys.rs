//! Supabase's new-format API keys: `sb_publishable_...` (the anon role) and `sb_secret_...` (the
//! service_role role). They are opaque strings, not JWTs: the gateway recognises them by value.
//!
//! Unless given explicitly, each key is derived one way from the JWT secret (HMAC-SHA256 under a
//! label of its own), so the same secret always prints the same keys and neither key reveals the
//! secret or the other key.

use crate::keys::role::Role;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// What every new-format key starts with; such a key is never read as a JWT.
pub const NEW_FORMAT_PREFIX: &str = "sb_";
pub const PUBLISHABLE_PREFIX: &str = "sb_publishable_";
pub const SECRET_PREFIX: &str = "sb_secret_";

const PUBLISHABLE_LABEL: &[u8] = b"geocache-emulator publishable key";
const SECRET_LABEL: &[u8] = b"geocache-emulator secret key";

/// The project's publishable and secret keys.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKeys {
    publishable: String,
    secret: String,
}

impl std::fmt::Debug for ApiKeys {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("ApiKeys { .. }")
    }
}

impl ApiKeys {
    /// The keys derived from `jwt_secret`.
    pub fn derive(jwt_secret: &str) -> ApiKeys {
        ApiKeys {
            publishable: format!(
                "{PUBLISHABLE_PREFIX}{}",
                derive_key(jwt_secret, PUBLISHABLE_LABEL)
            ),
            secret: format!("{SECRET_PREFIX}{}", derive_key(jwt_secret, SECRET_LABEL)),
        }
    }

    /// Replaces the derived keys with explicit ones (already checked by [`parse_publishable`]
    /// and [`parse_secret`]).
    pub fn with_explicit(self, publishable: Option<String>, secret: Option<String>) -> ApiKeys {
        ApiKeys {
            publishable: publishable.unwrap_or(self.publishable),
            secret: secret.unwrap_or(self.secret),
        }
    }

    pub fn publishable(&self) -> &str {
        &self.publishable
    }

    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// The role a new-format key stands for, or `None` for a key of another project, another
    /// kind (`sb_temp_...`) or a typo.
    pub fn role_of(&self, key: &str) -> Option<Role> {
        if same_text(key, &self.publishable) {
            Some(Role::Anon)
        } else if same_text(key, &self.secret) {
            Some(Role::ServiceRole)
        } else {
            None
        }
    }
}

fn derive_key(jwt_secret: &str, label: &[u8]) -> String {
    // HMAC accepts keys of any length, so `new_from_slice` cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(jwt_secret.as_bytes())
        .expect("HMAC takes any key length");
    mac.update(label);
    URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

/// Compares without stopping at the first difference, so response times do not leak how much of
/// a guessed key was right.
fn same_text(given: &str, expected: &str) -> bool {
    given.len() == expected.len()
        && given
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |difference, (a, b)| difference | (a ^ b))
            == 0
}

/// `--publishable-key`: must be `sb_publishable_` and a body a header can carry.
pub fn parse_publishable(text: &str) -> Result<String, String> {
    parse_with_prefix(text, PUBLISHABLE_PREFIX)
}

/// `--secret-key`: must be `sb_secret_` and a body a header can carry.
pub fn parse_secret(text: &str) -> Result<String, String> {
    parse_with_prefix(text, SECRET_PREFIX)
}

fn parse_with_prefix(text: &str, prefix: &str) -> Result<String, String> {
    let Some(body) = text.strip_prefix(prefix) else {
        return Err(format!("must start with `{prefix}`"));
    };
    if body.is_empty() {
        return Err(format!("needs characters after `{prefix}`"));
    }
    if !body
        .bytes()
        .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
    {
        return Err(format!(
            "may contain only letters, digits, `-` and `_` after `{prefix}`"
        ));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivation_is_deterministic_per_secret_and_label() {
        let first = ApiKeys::derive("one-secret-that-is-at-least-32-characters");
        let again = ApiKeys::derive("one-secret-that-is-at-least-32-characters");
        let other = ApiKeys::derive("two-secret-that-is-at-least-32-characters");
        assert_eq!(first, again);
        assert_ne!(first.publishable(), other.publishable());
        assert_ne!(first.secret(), other.secret());
        assert!(first.publishable().starts_with(PUBLISHABLE_PREFIX));
        assert!(first.secret().starts_with(SECRET_PREFIX));
        // The two keys are unrelated: one label each.
        assert_ne!(
            first.publishable().strip_prefix(PUBLISHABLE_PREFIX),
            first.secret().strip_prefix(SECRET_PREFIX)
        );
    }

    #[test]
    fn derivation_is_hmac_sha256_of_the_label_in_base64url() {
        // The widely published HMAC-SHA256 example (key "key"), so the derivation, and with it
        // every printed key, stays stable across refactors.
        assert_eq!(
            derive_key("key", b"The quick brown fox jumps over the lazy dog"),
            "97yD9DBThCSxMpjmqm-xQ-9NWaFJRhdZl0edvC0aPNg"
        );
        let keys = ApiKeys::derive("s");
        assert_eq!(
            keys.publishable(),
            format!("sb_publishable_{}", derive_key("s", PUBLISHABLE_LABEL))
        );
        assert!(!keys.publishable().contains('='));
    }

    #[test]
    fn roles_follow_the_key_kind() {
        let keys = ApiKeys::derive("s");
        assert_eq!(keys.role_of(keys.publishable()), Some(Role::Anon));
        assert_eq!(keys.role_of(keys.secret()), Some(Role::ServiceRole));
        assert_eq!(keys.role_of("sb_secret_nope"), None);
        assert_eq!(keys.role_of(""), None);
        let mut almost = keys.secret().to_owned();
        almost.pop();
        almost.push('!');
        assert_eq!(keys.role_of(&almost), None);
    }

    #[test]
    fn explicit_keys_replace_the_derived_ones() {
        let keys = ApiKeys::derive("s").with_explicit(Some("sb_publishable_mine".into()), None);
        assert_eq!(keys.publishable(), "sb_publishable_mine");
        assert_eq!(keys.secret(), ApiKeys::derive("s").secret());
        assert_eq!(keys.role_of("sb_publishable_mine"), Some(Role::Anon));
        assert_eq!(keys.role_of(ApiKeys::derive("s").publishable()), None);
    }

    #[test]
    fn explicit_keys_need_their_prefix_and_a_header_safe_body() {
        assert_eq!(
            parse_publishable("sb_publishable_abc-_9").as_deref(),
            Ok("sb_publishable_abc-_9")
        );
        assert_eq!(parse_secret("sb_secret_x").as_deref(), Ok("sb_secret_x"));
        for bad in [
            "sb_secret_x",
            "sb_publishable_",
            "abc",
            "sb_publishable_a b",
        ] {
            assert!(parse_publishable(bad).is_err(), "{bad}");
        }
        for bad in [
            "sb_publishable_x",
            "sb_secret_",
            "eyJhbGciOi.x.y",
            "sb_secret_é",
        ] {
            assert!(parse_secret(bad).is_err(), "{bad}");
        }
    }
}
