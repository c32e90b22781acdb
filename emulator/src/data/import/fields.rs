//! The rules every imported entry meets, whichever file it came from: an id a hosted identity
//! could hold, a time that names its offset, and texts PostgreSQL can store.

use crate::timestamp;

/// A whole number from 1 (what an identity column holds), written with digits only.
pub fn id(text: &str) -> Result<i64, String> {
    if text.is_empty() || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(format!("id {text:?} is not a whole number"));
    }
    match text.parse::<i64>() {
        Ok(id) if id >= 1 => Ok(id),
        Ok(_) => Err(format!("id {text:?} is not a positive whole number")),
        Err(_) => Err(format!("id {text:?} is too large for a bigint")),
    }
}

/// A `timestamptz` written with its offset: PostgreSQL's text (`2026-11-20 10:11:12.12345+00`)
/// or ISO 8601 with `T` and `Z` or an offset. A time without an offset is refused rather than
/// guessed: the same text names different instants in different time zones.
pub fn created_at(text: &str) -> Result<i64, String> {
    let refused = || format!("created_at {text:?} is not a timestamp with an offset");
    let trimmed = text.trim();
    // The date's own hyphens end at byte 10; an offset or a Z comes after the time.
    let has_offset = trimmed
        .get(10..)
        .is_some_and(|rest| rest.contains(['Z', 'z', '+', '-']));
    if !has_offset {
        return Err(refused());
    }
    timestamp::parse(trimmed).map_err(|_| refused())
}

/// A name or message: any text PostgreSQL's `text` can hold, which excludes U+0000.
pub fn text(column: &str, value: String) -> Result<String, String> {
    if value.contains('\0') {
        Err(format!(
            "the {column} holds U+0000, which PostgreSQL text cannot hold"
        ))
    } else {
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_positive_whole_numbers() {
        assert_eq!(id("1"), Ok(1));
        assert_eq!(id("9223372036854775807"), Ok(i64::MAX));
        for bad in [
            "",
            "0",
            "-1",
            "+1",
            "1.0",
            "1e3",
            " 1",
            "x",
            "9223372036854775808",
        ] {
            assert!(id(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn times_need_an_offset_and_keep_the_microsecond() {
        let base = 1_795_169_472_000_000;
        for (text, micros) in [
            ("2026-11-20 10:11:12.12345+00", base + 123_450),
            ("2026-11-20 10:11:12+00", base),
            ("2026-11-20T10:11:12.000001Z", base + 1),
            ("2026-11-20T12:11:12.5+02:00", base + 500_000),
            ("2026-11-20T05:11:12-05", base),
            ("2026-11-20 10:11:12.123456+00:00", base + 123_456),
        ] {
            assert_eq!(created_at(text), Ok(micros), "{text}");
        }
        for bad in [
            "2026-11-20 10:11:12",
            "2026-11-20T10:11:12.5",
            "2026-11-20",
            "yesterday",
            "2026-13-20 10:11:12+00",
            "",
        ] {
            assert!(created_at(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn texts_cannot_hold_nul() {
        assert!(text("name", "a\0b".to_owned()).is_err());
        assert_eq!(text("name", "a\u{1}b".to_owned()), Ok("a\u{1}b".to_owned()));
    }
}
