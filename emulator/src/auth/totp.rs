//! TOTP as GoTrue does it with pquerna/otp: a 20-byte random secret shown in base32 without
//! padding, an `otpauth://` URI, its QR code as SVG, and validation of SHA1 6-digit codes on a
//! 30 s period with one step of skew either side (RFC 6238, via totp-rs).

use crate::auth::constant_time;
use crate::auth::error::AuthError;
use crate::auth::settings::{TOTP_DIGITS, TOTP_PERIOD_SECONDS, TOTP_SECRET_BYTES, TOTP_SKEW_STEPS};
use crate::random;
use qrcode::render::svg;
use qrcode::{EcLevel, QrCode};
use totp_rs::{Algorithm, Secret, TOTP};

/// A new secret, base32-encoded without padding (32 characters).
pub fn new_secret() -> Result<String, AuthError> {
    let bytes = random::bytes::<TOTP_SECRET_BYTES>()?;
    match Secret::Raw(bytes.to_vec()).to_encoded() {
        Secret::Encoded(text) => Ok(text),
        Secret::Raw(_) => Err(AuthError::unexpected("base32 encoding returned raw bytes")),
    }
}

/// pquerna/otp's key URL: `otpauth://totp/<issuer>:<account>?algorithm=SHA1&digits=6&issuer=…&
/// period=30&secret=…`, the label escaped as a Go URL path and the values as path segments
/// (spaces become `%20`).
pub fn uri(issuer: &str, account: &str, secret: &str) -> String {
    let label = escape(&format!("/{issuer}:{account}"), Mode::Path);
    let query = [
        ("algorithm", "SHA1".to_owned()),
        ("digits", TOTP_DIGITS.to_string()),
        ("issuer", issuer.to_owned()),
        ("period", TOTP_PERIOD_SECONDS.to_string()),
        ("secret", secret.to_owned()),
    ]
    .iter()
    .map(|(key, value)| format!("{key}={}", escape(value, Mode::PathSegment)))
    .collect::<Vec<_>>()
    .join("&");
    format!("otpauth://totp{label}?{query}")
}

/// The QR code of `uri` as an SVG document (error correction level H, as GoTrue). Colours are
/// named, as GoTrue's are, never `#fff`: auth-js shows the SVG as
/// `data:image/svg+xml;utf-8,<svg…>` without encoding it, and a browser ends such a URL at the
/// first `#` (the fragment), which would leave a broken image.
pub fn qr_code_svg(uri: &str) -> Result<String, AuthError> {
    let code = QrCode::with_error_correction_level(uri.as_bytes(), EcLevel::H)
        .map_err(|error| AuthError::unexpected(format!("QR code: {error}")))?;
    Ok(code
        .render::<svg::Color<'_>>()
        .module_dimensions(3, 3)
        .dark_color(svg::Color("black"))
        .light_color(svg::Color("white"))
        .build())
}

/// Whether `code` is the secret's code at `now` (Unix seconds) or one period either side.
pub fn code_matches(secret: &str, code: &str, now: i64) -> Result<bool, AuthError> {
    Ok(matching_step(secret, code, now)?.is_some())
}

/// The time step (Unix seconds / period) whose code `code` is: the step of `now` or one either
/// side, or `None`.
pub fn matching_step(secret: &str, code: &str, now: i64) -> Result<Option<i64>, AuthError> {
    let totp = totp(secret)?;
    let Ok(now) = u64::try_from(now) else {
        return Ok(None);
    };
    let current = now / TOTP_PERIOD_SECONDS;
    let skew = u64::from(TOTP_SKEW_STEPS);
    for step in current.saturating_sub(skew)..=current + skew {
        let expected = totp.generate(step * TOTP_PERIOD_SECONDS);
        if constant_time::eq(expected.as_bytes(), code.as_bytes()) {
            return Ok(i64::try_from(step).ok());
        }
    }
    Ok(None)
}

/// The code for `secret` at `time` (Unix seconds); what an authenticator app shows.
pub fn code_at(secret: &str, time: u64) -> Result<String, AuthError> {
    Ok(totp(secret)?.generate(time))
}

fn totp(secret: &str) -> Result<TOTP, AuthError> {
    let bytes = Secret::Encoded(secret.to_owned())
        .to_bytes()
        .map_err(|error| AuthError::unexpected(format!("stored TOTP secret: {error:?}")))?;
    TOTP::new(
        Algorithm::SHA1,
        TOTP_DIGITS,
        TOTP_SKEW_STEPS,
        TOTP_PERIOD_SECONDS,
        bytes,
    )
    .map_err(|error| AuthError::unexpected(format!("TOTP: {error}")))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Go's `url.URL.EscapedPath`.
    Path,
    /// Go's `url.PathEscape`.
    PathSegment,
}

/// Go's `net/url` escaping (`shouldEscape`) for paths and path segments.
fn escape(text: &str, mode: Mode) -> String {
    let mut escaped = String::with_capacity(text.len());
    for byte in text.bytes() {
        let keep = byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'_' | b'.' | b'~')
            || match byte {
                b'$' | b'&' | b'+' | b':' | b'=' | b'@' => true,
                b'/' | b';' | b',' => mode == Mode::Path,
                _ => false,
            };
        if keep {
            escaped.push(char::from(byte));
        } else {
            escaped.push_str(&format!("%{byte:02X}"));
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

    #[test]
    fn secrets_are_32_base32_characters() {
        let secret = new_secret().unwrap();
        assert_eq!(secret.len(), 32);
        assert!(secret
            .bytes()
            .all(|byte| byte.is_ascii_uppercase() || (b'2'..=b'7').contains(&byte)));
        assert_ne!(secret, new_secret().unwrap());
    }

    #[test]
    fn uri_matches_pquerna_otp() {
        assert_eq!(
            uri("127.0.0.1:54321", "visitor@example.com", SECRET),
            "otpauth://totp/127.0.0.1:54321:visitor@example.com?algorithm=SHA1&digits=6\
             &issuer=127.0.0.1:54321&period=30&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
        );
        assert_eq!(
            uri("My Cache/Log?", "a+b@example.com", SECRET),
            "otpauth://totp/My%20Cache/Log%3F:a+b@example.com?algorithm=SHA1&digits=6\
             &issuer=My%20Cache%2FLog%3F&period=30&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
        );
        assert!(uri("Über", "x@y", SECRET).contains("issuer=%C3%9Cber&"));
    }

    #[test]
    fn qr_code_is_an_svg_document() {
        let svg = qr_code_svg(&uri("issuer", "x@example.com", SECRET)).unwrap();
        assert!(svg.starts_with("<?xml"), "{svg}");
        assert!(svg.contains("<svg") && svg.ends_with("</svg>"));
    }

    /// What a browser does with auth-js's `data:image/svg+xml;utf-8,` + SVG: the URL ends at the
    /// first `#` (the fragment) and its body is percent-decoded. The whole SVG must survive.
    #[test]
    fn the_data_url_auth_js_builds_holds_the_whole_svg() {
        let svg = qr_code_svg(&uri("My Cache #1", "x#y@example.com", SECRET)).unwrap();
        assert!(!svg.contains('#'), "{svg}");
        assert!(
            !svg.contains('%'),
            "a browser would percent-decode it: {svg}"
        );
        assert!(
            svg.contains("fill=\"white\"") && svg.contains("fill=\"black\""),
            "{svg}"
        );
        let data_url = format!("data:image/svg+xml;utf-8,{svg}");
        let before_fragment = data_url.split('#').next().unwrap();
        let body = before_fragment.split_once(',').unwrap().1;
        assert_eq!(body, svg);
    }

    #[test]
    fn rfc_6238_sha1_vector() {
        // RFC 6238 appendix B, SHA1 at 59 s: 94287082; the six-digit code is its tail.
        let secret = match Secret::Raw(b"12345678901234567890".to_vec()).to_encoded() {
            Secret::Encoded(text) => text,
            Secret::Raw(_) => unreachable!(),
        };
        assert_eq!(code_at(&secret, 59).unwrap(), "287082");
    }

    #[test]
    fn the_matching_step_is_the_codes_own() {
        let now: i64 = 1_700_000_015;
        let step = now / 30;
        let at = |offset: i64| code_at(SECRET, u64::try_from(now + offset).unwrap()).unwrap();
        assert_eq!(
            matching_step(SECRET, &at(-30), now).unwrap(),
            Some(step - 1)
        );
        assert_eq!(matching_step(SECRET, &at(0), now).unwrap(), Some(step));
        assert_eq!(matching_step(SECRET, &at(30), now).unwrap(), Some(step + 1));
        assert_eq!(matching_step(SECRET, &at(90), now).unwrap(), None);
    }

    #[test]
    fn one_step_of_skew_either_side() {
        let now: i64 = 1_700_000_015;
        let at = |offset: i64| code_at(SECRET, u64::try_from(now + offset).unwrap()).unwrap();
        for offset in [-30, 0, 30] {
            assert!(code_matches(SECRET, &at(offset), now).unwrap(), "{offset}");
        }
        for offset in [-60, 60] {
            assert!(!code_matches(SECRET, &at(offset), now).unwrap(), "{offset}");
        }
        assert!(!code_matches(SECRET, "12345", now).unwrap());
        assert!(!code_matches(SECRET, "", now).unwrap());
    }
}
