//! An upload's type and a bucket's allowed MIME types: `image/png` allows that type, `image/*`
//! every image type. Types are compared without their parameters (`text/plain;charset=UTF-8` is
//! `text/plain`) and without regard to case. An upload's type must be one media type as RFC 9110
//! writes it (`type/subtype`, then `;name=value` parameters): anything else, a list such as
//! `image/png, text/html` above all, would be checked as one type and served as another.

use crate::storage::error::StorageError;

/// The type without parameters, lower-cased.
pub fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

fn token(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-+.".contains(c))
}

/// RFC 9110's `tchar`.
fn tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn is_token(text: &str) -> bool {
    !text.is_empty() && text.chars().all(tchar)
}

/// A parameter's value: a token or a quoted string (RFC 9110 section 5.6.4).
fn is_parameter_value(text: &str) -> bool {
    let Some(quoted) = text
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    else {
        return is_token(text);
    };
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        let visible = |c: char| c == '\t' || c == ' ' || (c.is_ascii_graphic()) || !c.is_ascii();
        match c {
            '\\' => match chars.next() {
                Some(escaped) if visible(escaped) => {}
                _ => return false,
            },
            '"' => return false,
            c if visible(c) => {}
            _ => return false,
        }
    }
    true
}

/// Whether `content_type` is exactly one media type: `type/subtype` and `;name=value` parameters.
pub fn is_media_type(content_type: &str) -> bool {
    let mut pieces = content_type.split(';');
    let essence = pieces.next().unwrap_or_default().trim();
    let Some((kind, subtype)) = essence.split_once('/') else {
        return false;
    };
    if !is_token(kind) || !is_token(subtype) {
        return false;
    }
    // A quoted value may hold `;`: such a parameter is rejoined before it is read.
    let mut parameters: Vec<String> = Vec::new();
    for piece in pieces {
        match parameters.last_mut() {
            Some(open) if open.matches('"').count() % 2 == 1 => {
                open.push(';');
                open.push_str(piece);
            }
            _ => parameters.push(piece.to_owned()),
        }
    }
    parameters.iter().all(|parameter| {
        let parameter = parameter.trim_matches([' ', '\t']);
        // RFC 9110 allows an empty parameter (`text/plain;`).
        parameter.is_empty()
            || parameter
                .split_once('=')
                .is_some_and(|(name, value)| is_token(name) && is_parameter_value(value))
    })
}

/// A type a bucket may list: `type/subtype` or `type/*`.
pub fn check_allowed_entry(entry: &str) -> Result<(), StorageError> {
    let valid = match entry.split_once('/') {
        Some((kind, subtype)) => token(kind) && (subtype == "*" || token(subtype)),
        None => false,
    };
    if valid {
        Ok(())
    } else {
        Err(StorageError::invalid_mime_type(entry))
    }
}

/// Whether an upload of `content_type` is allowed: one media type, and one the bucket lists
/// (`None` lists every type).
pub fn check_upload(allowed: Option<&[String]>, content_type: &str) -> Result<(), StorageError> {
    if !is_media_type(content_type) {
        return Err(StorageError::invalid_mime_type(content_type));
    }
    let Some(allowed) = allowed.filter(|list| !list.is_empty()) else {
        return Ok(());
    };
    let wanted = essence(content_type);
    let matches = allowed.iter().any(|entry| {
        let entry = entry.to_ascii_lowercase();
        match entry.strip_suffix("/*") {
            Some(kind) => wanted
                .split_once('/')
                .is_some_and(|(wanted_kind, _)| wanted_kind == kind),
            None => entry == wanted,
        }
    });
    if matches {
        Ok(())
    } else {
        Err(StorageError::invalid_mime_type(content_type))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_and_wildcard_entries_match_by_essence() {
        let allowed = ["image/*".to_owned(), "text/plain".to_owned()];
        assert!(check_upload(Some(&allowed), "image/png").is_ok());
        assert!(check_upload(Some(&allowed), "text/plain;charset=UTF-8").is_ok());
        assert!(check_upload(Some(&allowed), "Text/Plain").is_ok());
        let refused = check_upload(Some(&allowed), "application/pdf").unwrap_err();
        assert_eq!(refused.status, 415);
        assert_eq!(
            refused.message,
            "mime type application/pdf is not supported"
        );
        assert!(check_upload(Some(&allowed), "imagex/png").is_err());
        assert!(check_upload(None, "anything/at-all").is_ok());
        assert!(check_upload(Some(&[]), "anything/at-all").is_ok());
    }

    #[test]
    fn an_upload_has_exactly_one_media_type() {
        for one in [
            "image/png",
            "text/plain;charset=UTF-8",
            "text/plain; charset=\"utf-8\"",
            "multipart/form-data; boundary=\"a;b,c\"",
            "application/vnd.api+json",
            "text/plain;",
        ] {
            assert!(is_media_type(one), "{one}");
        }
        for not_one in [
            "image/png, text/html",
            "image/png,text/html",
            "image/png; x=1, text/html",
            "image/png text/html",
            "image",
            "image/",
            "/png",
            "",
            "image/png; charset",
            "image/png; a=\"unclosed",
            "image/png\u{0}",
        ] {
            assert!(!is_media_type(not_one), "{not_one:?}");
        }
        let images = ["image/*".to_owned()];
        let refused = check_upload(Some(&images), "image/png, text/html").unwrap_err();
        assert_eq!(refused.status, 415);
        assert!(check_upload(None, "image/png, text/html").is_err());
    }

    #[test]
    fn bucket_entries_must_be_types() {
        assert!(check_allowed_entry("image/*").is_ok());
        assert!(check_allowed_entry("application/vnd.ms-excel").is_ok());
        for entry in ["image", "*/*", "image/", "ima ge/png", ""] {
            assert!(check_allowed_entry(entry).is_err(), "{entry:?}");
        }
    }
}
