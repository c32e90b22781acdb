//! GoTrue's checks on what users type: email addresses (badoux/checkmail's format), phone
//! numbers (E.164 digits) and password strength.

use crate::auth::error::AuthError;
use crate::auth::settings::{MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH};

const MAX_EMAIL_LENGTH: usize = 255;

/// The address lower-cased, as GoTrue stores it.
pub fn email(email: &str) -> Result<String, AuthError> {
    if email.is_empty() {
        return Err(AuthError::email_required());
    }
    if email.len() > MAX_EMAIL_LENGTH {
        return Err(AuthError::email_too_long());
    }
    if !email_format_is_valid(email) {
        return Err(AuthError::email_invalid());
    }
    Ok(email.to_lowercase())
}

/// checkmail's pattern: ``^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@`` then dot-separated labels of 1 to
/// 63 letters, digits and inner hyphens.
fn email_format_is_valid(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b".!#$%&'*+/=?^_`{|}~-".contains(&byte));
    local_ok && domain.split('.').all(domain_label_is_valid)
}

fn domain_label_is_valid(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            bytes.len() <= 63
                && first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|byte| byte.is_ascii_alphanumeric() || *byte == b'-')
        }
        _ => false,
    }
}

/// The number's digits without `+` or spaces (GoTrue's `validatePhone`).
pub fn phone(phone: &str) -> Result<String, AuthError> {
    let digits = phone.strip_prefix('+').unwrap_or(phone).replace(' ', "");
    let bytes = digits.as_bytes();
    let valid =
        (2..=15).contains(&bytes.len()) && bytes[0] != b'0' && bytes.iter().all(u8::is_ascii_digit);
    if valid {
        Ok(digits)
    } else {
        Err(AuthError::phone_invalid())
    }
}

/// GoTrue's `checkPasswordStrength` with the default policy: length in bytes only.
pub fn password_strength(password: &str) -> Result<(), AuthError> {
    if password.len() > MAX_PASSWORD_LENGTH {
        return Err(AuthError::password_too_long(MAX_PASSWORD_LENGTH));
    }
    if password.len() < MIN_PASSWORD_LENGTH {
        return Err(AuthError::weak_password(MIN_PASSWORD_LENGTH));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_lower_cased() {
        assert_eq!(email("Visitor@Example.COM").unwrap(), "visitor@example.com");
    }

    #[test]
    fn checkmail_accepts_these() {
        for address in [
            "a@b",
            "first.last+tag@sub.example.co",
            "o'brien@example.com",
            "x@a-b.c",
            "!#$%&'*+/=?^_`{|}~-@example.com",
        ] {
            assert!(email_format_is_valid(address), "{address}");
        }
    }

    #[test]
    fn checkmail_refuses_these() {
        let long_label = format!("a@{}.com", "b".repeat(64));
        for address in [
            "plain",
            "@example.com",
            "a@",
            "a@b@c",
            "a@-b.com",
            "a@b-.com",
            "a@b..com",
            "a b@example.com",
            "<script>@example.com",
            "é@example.com",
            long_label.as_str(),
        ] {
            assert!(!email_format_is_valid(address), "{address}");
        }
    }

    #[test]
    fn email_errors_name_the_problem() {
        assert_eq!(email(""), Err(AuthError::email_required()));
        let long = format!("{}@example.com", "a".repeat(250));
        assert_eq!(email(&long), Err(AuthError::email_too_long()));
        assert_eq!(email("nope"), Err(AuthError::email_invalid()));
    }

    #[test]
    fn phones_are_e164_digits() {
        assert_eq!(phone("+1 555 123 4567").unwrap(), "15551234567");
        assert_eq!(phone("4915112345678").unwrap(), "4915112345678");
        for bad in [
            "",
            "+",
            "+0123",
            "1",
            "+1234567890123456",
            "+1-555",
            "++15551234567",
        ] {
            assert_eq!(phone(bad), Err(AuthError::phone_invalid()), "{bad}");
        }
    }

    #[test]
    fn passwords_need_six_to_seventy_two_bytes() {
        assert_eq!(password_strength("12345"), Err(AuthError::weak_password(6)));
        assert!(password_strength("123456").is_ok());
        assert!(password_strength(&"x".repeat(72)).is_ok());
        assert_eq!(
            password_strength(&"x".repeat(73)),
            Err(AuthError::password_too_long(72))
        );
        // Bytes, not characters: three two-byte characters are long enough.
        assert!(password_strength("ééé").is_ok());
    }
}
