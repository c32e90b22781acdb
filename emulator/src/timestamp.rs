//! `timestamptz` values as the emulator stores them (microseconds since the Unix epoch, UTC) and
//! their text forms: PostgREST's JSON output and the PostgreSQL input forms clients send.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime};
use std::time::{SystemTime, UNIX_EPOCH};

const MICROS_PER_SECOND: i64 = 1_000_000;

/// The current time in microseconds since the epoch (what PostgreSQL's `now()` resolves to).
pub fn now_micros() -> i64 {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(since_epoch.as_micros()).unwrap_or(i64::MAX)
}

/// Formats as PostgreSQL's JSON encoding of a `timestamptz` in a UTC session:
/// `T` separator, fraction trimmed of trailing zeros and omitted when zero, `+00:00`.
pub fn to_json_text(micros: i64) -> String {
    let mut text = utc_datetime(micros).format("%Y-%m-%dT%H:%M:%S").to_string();
    push_fraction(&mut text, micros);
    text.push_str("+00:00");
    text
}

/// Formats as PostgreSQL's text output in a UTC session (`2024-05-01 12:34:56.5+00`), the form
/// used in error details such as "Failing row contains (...)".
pub fn to_pg_text(micros: i64) -> String {
    let mut text = utc_datetime(micros).format("%Y-%m-%d %H:%M:%S").to_string();
    push_fraction(&mut text, micros);
    text.push_str("+00");
    text
}

/// Formats as Go's `time.Time` JSON for a UTC time read from PostgreSQL (RFC 3339 with up to six
/// fraction digits, trailing zeros trimmed, `Z`), the form GoTrue's timestamps take.
pub fn to_go_json_text(micros: i64) -> String {
    let mut text = utc_datetime(micros).format("%Y-%m-%dT%H:%M:%S").to_string();
    push_fraction(&mut text, micros);
    text.push('Z');
    text
}

fn utc_datetime(micros: i64) -> NaiveDateTime {
    let seconds = micros.div_euclid(MICROS_PER_SECOND);
    DateTime::from_timestamp(seconds, 0)
        .unwrap_or_default()
        .naive_utc()
}

fn push_fraction(text: &mut String, micros: i64) {
    let fraction = micros.rem_euclid(MICROS_PER_SECOND);
    if fraction != 0 {
        let digits = format!("{fraction:06}");
        text.push('.');
        text.push_str(digits.trim_end_matches('0'));
    }
}

/// Why a text could not be read as a `timestamptz`; the variants map to PostgreSQL's SQLSTATEs
/// 22007 (invalid_datetime_format) and 22008 (datetime_field_overflow).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimestampError {
    InvalidSyntax,
    FieldOutOfRange,
}

/// Parses the PostgreSQL `timestamptz` input forms clients realistically send: `YYYY-MM-DD`,
/// optionally followed by `T` or a space and `HH:MM[:SS[.fraction]]`, optionally followed by
/// `Z`, `±HH`, `±HHMM` or `±HH:MM[:SS]` (a space before the offset is allowed). Without an offset
/// the value is UTC, the session time zone of a Supabase database. More than six fraction digits
/// are rounded to the microsecond, as PostgreSQL does. Years are limited to 1..=9999.
pub fn parse(input: &str) -> Result<i64, TimestampError> {
    let text = input.trim();
    let bytes = text.as_bytes();
    let mut cursor = 0;
    let year = read_number(bytes, &mut cursor, 4, 4)?;
    expect(bytes, &mut cursor, b'-')?;
    let month = read_number(bytes, &mut cursor, 1, 2)?;
    expect(bytes, &mut cursor, b'-')?;
    let day = read_number(bytes, &mut cursor, 1, 2)?;
    let date = NaiveDate::from_ymd_opt(year as i32, month, day)
        .filter(|_| year >= 1)
        .ok_or(TimestampError::FieldOutOfRange)?;

    let mut time = NaiveTime::MIN;
    let mut fraction_micros: i64 = 0;
    if matches!(bytes.get(cursor), Some(b'T' | b't' | b' '))
        && bytes.get(cursor + 1).is_some_and(u8::is_ascii_digit)
    {
        cursor += 1;
        let hour = read_number(bytes, &mut cursor, 1, 2)?;
        expect(bytes, &mut cursor, b':')?;
        let minute = read_number(bytes, &mut cursor, 2, 2)?;
        let mut second = 0;
        if bytes.get(cursor) == Some(&b':') {
            cursor += 1;
            second = read_number(bytes, &mut cursor, 2, 2)?;
            if bytes.get(cursor) == Some(&b'.') {
                cursor += 1;
                fraction_micros = read_fraction(bytes, &mut cursor)?;
            }
        }
        time =
            NaiveTime::from_hms_opt(hour, minute, second).ok_or(TimestampError::FieldOutOfRange)?;
    }

    if bytes.get(cursor) == Some(&b' ') {
        cursor += 1;
    }
    let offset_seconds = read_offset(bytes, &mut cursor)?;
    if cursor != bytes.len() {
        return Err(TimestampError::InvalidSyntax);
    }

    let local_seconds = date.and_time(time).and_utc().timestamp();
    Ok((local_seconds - offset_seconds) * MICROS_PER_SECOND + fraction_micros)
}

fn read_number(
    bytes: &[u8],
    cursor: &mut usize,
    min_digits: usize,
    max_digits: usize,
) -> Result<u32, TimestampError> {
    let start = *cursor;
    while *cursor < bytes.len() && *cursor - start < max_digits && bytes[*cursor].is_ascii_digit() {
        *cursor += 1;
    }
    if *cursor - start < min_digits {
        return Err(TimestampError::InvalidSyntax);
    }
    bytes[start..*cursor]
        .iter()
        .try_fold(0u32, |value, digit| {
            value.checked_mul(10)?.checked_add(u32::from(digit - b'0'))
        })
        .ok_or(TimestampError::InvalidSyntax)
}

fn expect(bytes: &[u8], cursor: &mut usize, wanted: u8) -> Result<(), TimestampError> {
    if bytes.get(*cursor) == Some(&wanted) {
        *cursor += 1;
        Ok(())
    } else {
        Err(TimestampError::InvalidSyntax)
    }
}

/// Reads fraction digits and rounds them to microseconds (half away from zero).
fn read_fraction(bytes: &[u8], cursor: &mut usize) -> Result<i64, TimestampError> {
    let start = *cursor;
    while bytes.get(*cursor).is_some_and(u8::is_ascii_digit) {
        *cursor += 1;
    }
    let digits = &bytes[start..*cursor];
    if digits.is_empty() {
        return Err(TimestampError::InvalidSyntax);
    }
    let mut micros: i64 = 0;
    for position in 0..6 {
        let digit = digits.get(position).map_or(0, |d| i64::from(d - b'0'));
        micros = micros * 10 + digit;
    }
    if digits.get(6).is_some_and(|d| *d >= b'5') {
        micros += 1;
    }
    Ok(micros)
}

fn read_offset(bytes: &[u8], cursor: &mut usize) -> Result<i64, TimestampError> {
    let sign = match bytes.get(*cursor) {
        None => return Ok(0),
        Some(b'Z' | b'z') => {
            *cursor += 1;
            return Ok(0);
        }
        Some(b'+') => 1,
        Some(b'-') => -1,
        Some(_) => return Err(TimestampError::InvalidSyntax),
    };
    *cursor += 1;
    let hours = i64::from(read_number(bytes, cursor, 1, 2)?);
    let mut minutes = 0;
    let mut seconds = 0;
    if bytes.get(*cursor) == Some(&b':') {
        *cursor += 1;
        minutes = i64::from(read_number(bytes, cursor, 2, 2)?);
        if bytes.get(*cursor) == Some(&b':') {
            *cursor += 1;
            seconds = i64::from(read_number(bytes, cursor, 2, 2)?);
        }
    } else if bytes.get(*cursor).is_some_and(u8::is_ascii_digit) {
        minutes = i64::from(read_number(bytes, cursor, 2, 2)?);
    }
    if hours > 15 || minutes > 59 || seconds > 59 {
        return Err(TimestampError::FieldOutOfRange);
    }
    Ok(sign * (hours * 3600 + minutes * 60 + seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAY_FIRST: i64 = 1_714_566_896; // 2024-05-01T12:34:56Z

    #[test]
    fn json_text_trims_the_fraction_like_postgresql() {
        assert_eq!(
            to_json_text(MAY_FIRST * 1_000_000 + 789_012),
            "2024-05-01T12:34:56.789012+00:00"
        );
        assert_eq!(
            to_json_text(MAY_FIRST * 1_000_000 + 120_000),
            "2024-05-01T12:34:56.12+00:00"
        );
        assert_eq!(
            to_json_text(MAY_FIRST * 1_000_000),
            "2024-05-01T12:34:56+00:00"
        );
        assert_eq!(to_json_text(1), "1970-01-01T00:00:00.000001+00:00");
    }

    #[test]
    fn go_json_text_ends_in_z() {
        assert_eq!(
            to_go_json_text(1_714_566_896_789_012),
            "2024-05-01T12:34:56.789012Z"
        );
        assert_eq!(
            to_go_json_text(1_714_566_896_000_000),
            "2024-05-01T12:34:56Z"
        );
        assert_eq!(
            to_go_json_text(1_714_566_896_120_000),
            "2024-05-01T12:34:56.12Z"
        );
    }

    #[test]
    fn json_text_handles_instants_before_the_epoch() {
        assert_eq!(to_json_text(-1), "1969-12-31T23:59:59.999999+00:00");
    }

    #[test]
    fn pg_text_uses_a_space_and_a_short_offset() {
        assert_eq!(
            to_pg_text(MAY_FIRST * 1_000_000 + 500_000),
            "2024-05-01 12:34:56.5+00"
        );
    }

    #[test]
    fn parses_the_forms_clients_send() {
        let base = MAY_FIRST * 1_000_000;
        for (input, expected) in [
            ("2024-05-01T12:34:56+00:00", base),
            ("2024-05-01T12:34:56Z", base),
            ("2024-05-01 12:34:56", base),
            ("2024-05-01 12:34:56+00", base),
            ("2024-05-01T14:34:56+02:00", base),
            ("2024-05-01T14:34:56+0200", base),
            ("2024-05-01T10:34:56 -02", base),
            ("2024-05-01T12:34:56.789012+00:00", base + 789_012),
            ("2024-05-01T12:34:56.7890125Z", base + 789_013),
            ("2024-05-01T12:34:56.1Z", base + 100_000),
            ("2024-05-01T12:34Z", base - 56_000_000),
            (
                "2024-05-01",
                (MAY_FIRST - 12 * 3600 - 34 * 60 - 56) * 1_000_000,
            ),
            ("  2024-05-01T12:34:56Z  ", base),
        ] {
            assert_eq!(parse(input), Ok(expected), "{input}");
        }
    }

    #[test]
    fn round_trips_its_own_output() {
        for micros in [0, 1, 999_999, MAY_FIRST * 1_000_000 + 42, -5_000_001] {
            assert_eq!(parse(&to_json_text(micros)), Ok(micros));
            assert_eq!(parse(&to_pg_text(micros)), Ok(micros));
        }
    }

    #[test]
    fn rejects_malformed_text_as_invalid_syntax() {
        for input in [
            "",
            "yesterday-ish",
            "2024/05/01",
            "2024-05-01T12",
            "2024-05-01T12:34:56+",
            "2024-05-01T12:34:56.",
            "2024-05-01T12:34:56Zjunk",
            "'; drop table geocache_logs; --",
        ] {
            assert_eq!(parse(input), Err(TimestampError::InvalidSyntax), "{input}");
        }
    }

    #[test]
    fn rejects_impossible_fields_as_out_of_range() {
        for input in [
            "2024-13-01",
            "2024-02-30",
            "2024-05-01T25:00:00Z",
            "0000-01-01",
        ] {
            assert_eq!(
                parse(input),
                Err(TimestampError::FieldOutOfRange),
                "{input}"
            );
        }
    }
}
