//! A bucket's allowed MIME types: `image/png` allows that type, `image/*` every image type.
//! Types are compared without their parameters (`text/plain;charset=UTF-8` is `text/plain`) and
//! without regard to case.

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

/// Whether an upload of `content_type` is allowed; `None` allows every type.
pub fn check_upload(allowed: Option<&[String]>, content_type: &str) -> Result<(), StorageError> {
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
    fn bucket_entries_must_be_types() {
        assert!(check_allowed_entry("image/*").is_ok());
        assert!(check_allowed_entry("application/vnd.ms-excel").is_ok());
        for entry in ["image", "*/*", "image/", "ima ge/png", ""] {
            assert!(check_allowed_entry(entry).is_err(), "{entry:?}");
        }
    }
}
