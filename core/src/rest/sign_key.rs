//! A sign's idempotency key: a UUID sent as the `Idempotency-Key` header of its insert, the same
//! one on every resend, so the database stores the sign once however often it arrives. Made
//! from random bytes the caller supplies (core has no randomness of its own), or read from a key
//! the caller kept from an earlier attempt.

/// The request header carrying the key.
pub const KEY_HEADER: &str = "idempotency-key";

/// A canonical UUID (8-4-4-4-12 hexadecimal digits), lower-case.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SignKey(String);

/// A key that is not a canonical UUID; the database would refuse it (PT400).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("idempotencyKey is not a UUID written as 8-4-4-4-12 hexadecimal digits: {0:?}")]
pub struct SignKeyError(pub String);

const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];

impl SignKey {
    /// A random (version 4) UUID from 16 random bytes.
    pub fn from_random_bytes(mut bytes: [u8; 16]) -> SignKey {
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        let mut text = String::with_capacity(36);
        let mut start = 0;
        for (index, len) in GROUPS.into_iter().enumerate() {
            if index > 0 {
                text.push('-');
            }
            text.push_str(&hex[start..start + len]);
            start += len;
        }
        SignKey(text)
    }

    /// A key kept from an earlier attempt: 8-4-4-4-12 hexadecimal digits in either case,
    /// nothing around them (no braces, no spaces), as the database takes them.
    pub fn parse(text: &str) -> Result<SignKey, SignKeyError> {
        let mut groups = text.split('-');
        let canonical = GROUPS.iter().all(|&len| {
            groups.next().is_some_and(|group| {
                group.len() == len && group.bytes().all(|byte| byte.is_ascii_hexdigit())
            })
        }) && groups.next().is_none();
        if canonical {
            Ok(SignKey(text.to_ascii_lowercase()))
        } else {
            Err(SignKeyError(text.to_owned()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SignKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_bytes_become_a_version_4_uuid() {
        let key = SignKey::from_random_bytes([0xff; 16]);
        assert_eq!(key.as_str(), "ffffffff-ffff-4fff-bfff-ffffffffffff");
        let key = SignKey::from_random_bytes([0; 16]);
        assert_eq!(key.as_str(), "00000000-0000-4000-8000-000000000000");
        let bytes: [u8; 16] = std::array::from_fn(|index| index as u8 * 17);
        let key = SignKey::from_random_bytes(bytes);
        assert_eq!(key.to_string(), "00112233-4455-4677-8899-aabbccddeeff");
        assert_eq!(SignKey::parse(key.as_str()), Ok(key));
    }

    #[test]
    fn kept_keys_are_read_in_either_case() {
        let key = SignKey::parse("123E4567-E89B-42D3-a456-426614174000").unwrap();
        assert_eq!(key.as_str(), "123e4567-e89b-42d3-a456-426614174000");
    }

    #[test]
    fn anything_but_a_canonical_uuid_is_refused() {
        for text in [
            "",
            "not a key",
            "123e4567e89b42d3a456426614174000",
            "{123e4567-e89b-42d3-a456-426614174000}",
            " 123e4567-e89b-42d3-a456-426614174000",
            "123e4567-e89b-42d3-a456-426614174000 ",
            "123e4567-e89b-42d3-a456-42661417400g",
            "123e4567-e89b-42d3-a456-4266141740001",
            "123e4567-e89b-42d3-a456-426614174000-",
            "123e4567-e89b-42d3a-456-426614174000",
            "123e4567-e89b-42d3-a456-42661417４000",
        ] {
            assert_eq!(
                SignKey::parse(text),
                Err(SignKeyError(text.into())),
                "{text:?}"
            );
        }
        assert_eq!(
            SignKeyError("x".into()).to_string(),
            "idempotencyKey is not a UUID written as 8-4-4-4-12 hexadecimal digits: \"x\""
        );
    }
}
