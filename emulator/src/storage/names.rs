//! Which bucket and object names the storage server accepts.
//!
//! Supabase Storage allows, in object names, ASCII letters, digits and `_ / ! - . * ' ( ) space
//! & $ @ = ; : + , ?`, and the same without `/` in bucket names (at most 100 characters). The
//! emulator also refuses what would make a name a path outside its place: empty segments (a
//! leading, trailing or doubled `/`), `.` and `..` segments, and names over 1024 bytes. So a
//! name never carries a backslash, a control character, a NUL or a traversal, however the URL
//! spelt it (the router decodes `%2e%2e%2f` before the check).

use crate::storage::error::StorageError;

/// Hosted Storage's longest bucket name.
const MAX_BUCKET_NAME_CHARS: usize = 100;
/// Hosted Storage's longest object name, in bytes.
const MAX_OBJECT_NAME_BYTES: usize = 1024;

fn allowed_in_name(character: char) -> bool {
    character.is_ascii_alphanumeric() || "_!-.*'() &$@=;:+,?".contains(character)
}

/// A bucket id (its name) that may be stored.
pub fn check_bucket_name(name: &str) -> Result<(), StorageError> {
    let valid = !name.is_empty()
        && name.chars().count() <= MAX_BUCKET_NAME_CHARS
        && name.chars().all(allowed_in_name)
        && name != "."
        && name != "..";
    if valid {
        Ok(())
    } else {
        Err(StorageError::invalid_bucket_name())
    }
}

/// An object name (`folder/file.png`) that may be stored.
pub fn check_object_name(name: &str) -> Result<(), StorageError> {
    let valid = !name.is_empty()
        && name.len() <= MAX_OBJECT_NAME_BYTES
        && name
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
        && name.chars().all(|c| c == '/' || allowed_in_name(c));
    if valid {
        Ok(())
    } else {
        Err(StorageError::invalid_key(name))
    }
}

/// A listing prefix: a folder path that may be empty and may end in `/`.
pub fn check_prefix(prefix: &str) -> Result<(), StorageError> {
    let trimmed = prefix.strip_suffix('/').unwrap_or(prefix);
    if trimmed.is_empty() {
        return Ok(());
    }
    check_object_name(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_names_pass() {
        for name in [
            "a.png",
            "folder/sub/file name (1).jpg",
            "x!-_.*'()&$@=;:+,?",
        ] {
            assert_eq!(check_object_name(name), Ok(()), "{name}");
        }
        assert_eq!(check_bucket_name("photos"), Ok(()));
        assert_eq!(check_prefix(""), Ok(()));
        assert_eq!(check_prefix("folder/"), Ok(()));
    }

    #[test]
    fn traversal_and_odd_names_are_refused() {
        let long = "a".repeat(1025);
        for name in [
            "../x",
            "a/../../x",
            "./x",
            "a/.",
            "/etc/passwd",
            "a//b",
            "a/",
            "a\\..\\b",
            "a\u{0}b",
            "a\nb",
            "a\u{7f}b",
            "caf\u{e9}",
            "",
            long.as_str(),
        ] {
            let refused = check_object_name(name).unwrap_err();
            assert_eq!(refused.code, "InvalidKey", "{name:?}");
        }
        for name in ["", ".", "..", "a/b", "a\\b", &"b".repeat(101)] {
            assert!(check_bucket_name(name).is_err(), "{name:?}");
        }
        assert!(check_prefix("../").is_err());
    }
}
