//! Randomness from the operating system: ids, refresh tokens, TOTP secrets and SMS codes.

use uuid::Uuid;

/// The operating system gave no random bytes; every service answers it as an internal error.
#[derive(Debug)]
pub struct Unavailable(getrandom::Error);

impl std::fmt::Display for Unavailable {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "random: {}", self.0)
    }
}

impl std::error::Error for Unavailable {}

pub fn bytes<const N: usize>() -> Result<[u8; N], Unavailable> {
    let mut buffer = [0u8; N];
    getrandom::fill(&mut buffer).map_err(Unavailable)?;
    Ok(buffer)
}

/// A version 4 UUID, as `uuid.NewV4()` makes them.
pub fn uuid() -> Result<Uuid, Unavailable> {
    Ok(uuid::Builder::from_random_bytes(bytes::<16>()?).into_uuid())
}

/// `len` characters drawn uniformly from `alphabet` (at most 256 characters).
fn string_from(alphabet: &[u8], len: usize) -> Result<String, Unavailable> {
    // Rejection sampling: bytes at or above the largest multiple of the alphabet size would
    // favour the first characters.
    let size = alphabet.len();
    let limit = 256 - 256 % size;
    let mut text = String::with_capacity(len);
    while text.len() < len {
        for byte in bytes::<32>()? {
            if usize::from(byte) < limit && text.len() < len {
                text.push(char::from(alphabet[usize::from(byte) % size]));
            }
        }
    }
    Ok(text)
}

/// A legacy GoTrue refresh token: 12 lower-case letters and digits (`crypto.SecureAlphanumeric`).
pub fn refresh_token() -> Result<String, Unavailable> {
    string_from(b"abcdefghijklmnopqrstuvwxyz0123456789", 12)
}

/// A numeric one-time code (`crypto.GenerateOtp`).
pub fn digits(len: usize) -> Result<String, Unavailable> {
    string_from(b"0123456789", len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_tokens_have_the_legacy_shape_and_differ() {
        let first = refresh_token().unwrap();
        let second = refresh_token().unwrap();
        assert_eq!(first.len(), 12);
        assert!(first
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit()));
        assert_ne!(first, second);
    }

    #[test]
    fn codes_are_digits_of_the_asked_length() {
        let code = digits(6).unwrap();
        assert_eq!(code.len(), 6);
        assert!(code.bytes().all(|byte| byte.is_ascii_digit()));
    }

    #[test]
    fn every_digit_turns_up() {
        let many = digits(2000).unwrap();
        for digit in '0'..='9' {
            assert!(many.contains(digit), "{digit}");
        }
    }

    #[test]
    fn uuids_are_version_4() {
        let id = uuid().unwrap();
        assert_eq!(id.get_version_num(), 4);
        assert_ne!(id, uuid().unwrap());
    }
}
