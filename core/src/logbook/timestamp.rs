//! An exact parser for the timestamps PostgreSQL and RFC 3339 write.
//!
//! Accepted: `YYYY-MM-DD`, a `T`, `t` or space, `HH:MM:SS`, an optional `.` with 1 to 9 fraction
//! digits, then `Z`/`z` or an offset `±HH`, `±HHMM`, `±HH:MM` or `±HH:MM:SS` (PostgreSQL writes
//! `+00:00`, and `+05:30:15` for second-level offsets). No crate parses all the offset forms, so
//! this is written out by hand and checked against chrono in the tests.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

const NANOS_PER_SECOND: i128 = 1_000_000_000;

/// A parsed timestamp: the server's text kept verbatim, plus the instant it denotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timestamp {
    text: String,
    unix_nanos: i128,
}

/// Why a string is not a timestamp.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimestampError {
    #[error("expected {expected} at byte {position} of {text:?}")]
    Syntax {
        text: String,
        position: usize,
        expected: &'static str,
    },
    #[error("{field} {value} is out of range in {text:?}")]
    OutOfRange {
        text: String,
        field: &'static str,
        value: u32,
    },
}

impl Timestamp {
    /// A timestamp as PostgreSQL's `timestamptz` output writes it (a `T` or space between date
    /// and time, an optional fraction, an offset), kept verbatim.
    ///
    /// ```
    /// use geocache_core::Timestamp;
    ///
    /// let at = Timestamp::parse("1970-01-01 00:00:01.5+00")?;
    /// assert_eq!(at.unix_nanos(), 1_500_000_000);
    /// assert_eq!(at.as_str(), "1970-01-01 00:00:01.5+00");
    /// assert!(Timestamp::parse("2026-02-30T00:00:00Z").is_err());
    /// # Ok::<(), geocache_core::TimestampError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Self, TimestampError> {
        Ok(Timestamp {
            text: text.to_owned(),
            unix_nanos: parse_unix_nanos(text)?,
        })
    }

    /// A timestamp whose text [`parse_unix_nanos`] has already turned into this instant.
    pub(crate) fn from_validated(text: String, unix_nanos: i128) -> Self {
        Timestamp { text, unix_nanos }
    }

    /// The text exactly as received.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Nanoseconds since 1970-01-01T00:00:00Z.
    pub fn unix_nanos(&self) -> i128 {
        self.unix_nanos
    }
}

impl FromStr for Timestamp {
    type Err = TimestampError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Timestamp::parse(text)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Serialises as the verbatim server string, so the JS side sees what PostgREST sent.
impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

/// The instant a timestamp denotes, in nanoseconds since 1970-01-01T00:00:00Z, without keeping
/// the text: what the entry list needs for each of its (possibly 100,000) rows.
pub fn parse_unix_nanos(text: &str) -> Result<i128, TimestampError> {
    Parser::new(text).timestamp()
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            text,
            bytes: text.as_bytes(),
            position: 0,
        }
    }

    fn timestamp(mut self) -> Result<i128, TimestampError> {
        let year = self.digits(4, "a 4-digit year")?;
        self.literal(b'-')?;
        let month = self.digits(2, "a 2-digit month")?;
        self.literal(b'-')?;
        let day = self.digits(2, "a 2-digit day")?;
        match self.peek() {
            Some(b'T' | b't' | b' ') => self.position += 1,
            _ => return Err(self.syntax("'T' or a space")),
        }
        let hour = self.digits(2, "a 2-digit hour")?;
        self.literal(b':')?;
        let minute = self.digits(2, "2-digit minutes")?;
        self.literal(b':')?;
        let second = self.digits(2, "2-digit seconds")?;
        let fraction_nanos = self.fraction()?;
        let offset_seconds = self.offset()?;
        if self.position != self.bytes.len() {
            return Err(self.syntax("the end of the timestamp"));
        }

        self.check_range("month", month, 1..=12)?;
        self.check_range("day", day, 1..=days_in_month(year, month))?;
        self.check_range("hour", hour, 0..=23)?;
        self.check_range("minute", minute, 0..=59)?;
        self.check_range("second", second, 0..=59)?;

        let days = days_from_civil(i64::from(year), month, day);
        let seconds = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second)
            - i64::from(offset_seconds);
        Ok(i128::from(seconds) * NANOS_PER_SECOND + i128::from(fraction_nanos))
    }

    /// `.` followed by 1 to 9 digits, scaled to nanoseconds; absent means zero.
    fn fraction(&mut self) -> Result<u32, TimestampError> {
        if self.peek() != Some(b'.') {
            return Ok(0);
        }
        self.position += 1;
        let start = self.position;
        let mut nanos = 0u32;
        while let Some(digit @ b'0'..=b'9') = self.peek() {
            if self.position - start == 9 {
                return Err(self.syntax("at most 9 fraction digits"));
            }
            nanos = nanos * 10 + u32::from(digit - b'0');
            self.position += 1;
        }
        let count = self.position - start;
        if count == 0 {
            return Err(self.syntax("a fraction digit"));
        }
        Ok(nanos * 10u32.pow(9 - count as u32))
    }

    /// Seconds east of UTC.
    fn offset(&mut self) -> Result<i32, TimestampError> {
        let sign = match self.peek() {
            Some(b'Z' | b'z') => {
                self.position += 1;
                return Ok(0);
            }
            Some(b'+') => 1,
            Some(b'-') => -1,
            _ => return Err(self.syntax("'Z' or a UTC offset")),
        };
        self.position += 1;
        let hours = self.digits(2, "2-digit offset hours")?;
        let (minutes, seconds) = match self.peek() {
            Some(b':') => {
                self.position += 1;
                let minutes = self.digits(2, "2-digit offset minutes")?;
                let seconds = if self.peek() == Some(b':') {
                    self.position += 1;
                    self.digits(2, "2-digit offset seconds")?
                } else {
                    0
                };
                (minutes, seconds)
            }
            Some(b'0'..=b'9') => (self.digits(2, "2-digit offset minutes")?, 0),
            _ => (0, 0),
        };
        self.check_range("offset hour", hours, 0..=23)?;
        self.check_range("offset minute", minutes, 0..=59)?;
        self.check_range("offset second", seconds, 0..=59)?;
        // At most 23:59:59, so the cast cannot overflow.
        Ok(sign * (hours * 3600 + minutes * 60 + seconds) as i32)
    }

    fn digits(&mut self, count: usize, expected: &'static str) -> Result<u32, TimestampError> {
        let mut value = 0;
        for _ in 0..count {
            match self.peek() {
                Some(digit @ b'0'..=b'9') => {
                    value = value * 10 + u32::from(digit - b'0');
                    self.position += 1;
                }
                _ => return Err(self.syntax(expected)),
            }
        }
        Ok(value)
    }

    fn literal(&mut self, byte: u8) -> Result<(), TimestampError> {
        if self.peek() == Some(byte) {
            self.position += 1;
            Ok(())
        } else {
            Err(self.syntax(match byte {
                b'-' => "'-'",
                _ => "':'",
            }))
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.position).copied()
    }

    fn syntax(&self, expected: &'static str) -> TimestampError {
        TimestampError::Syntax {
            text: self.text.to_owned(),
            position: self.position,
            expected,
        }
    }

    fn check_range(
        &self,
        field: &'static str,
        value: u32,
        range: std::ops::RangeInclusive<u32>,
    ) -> Result<(), TimestampError> {
        if range.contains(&value) {
            Ok(())
        } else {
            Err(TimestampError::OutOfRange {
                text: self.text.to_owned(),
                field,
                value,
            })
        }
    }
}

/// Whether `year-month-day` is a real day of the (proleptic Gregorian) calendar: the one calendar
/// check the crate has, for timestamps and for the auth API's version dates alike.
pub(crate) fn is_calendar_date(year: u32, month: u32, day: u32) -> bool {
    (1..=12).contains(&month) && (1..=days_in_month(year, month)).contains(&day)
}

fn is_leap_year(year: u32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The days `month` (1 to 12) has in `year`.
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, NaiveDate};
    use proptest::prelude::*;

    fn nanos(text: &str) -> i128 {
        Timestamp::parse(text)
            .unwrap_or_else(|error| panic!("{text:?}: {error}"))
            .unix_nanos()
    }

    #[test]
    fn postgrest_output_forms_parse() {
        let cases = [
            ("1970-01-01T00:00:00+00:00", 0),
            (
                "2024-05-01T12:34:56.789012+00:00",
                1_714_566_896_789_012_000,
            ),
            ("2024-05-01T12:34:56+00:00", 1_714_566_896_000_000_000),
            ("2024-05-01T12:34:56.12+00:00", 1_714_566_896_120_000_000),
            ("2023-10-18T05:37:59.611-07:00", 1_697_632_679_611_000_000),
        ];
        for (text, expected) in cases {
            assert_eq!(nanos(text), expected, "{text}");
        }
    }

    #[test]
    fn every_offset_form_denotes_the_same_instant() {
        let utc = nanos("2024-05-01T12:34:56Z");
        for text in [
            "2024-05-01T12:34:56z",
            "2024-05-01 12:34:56+00",
            "2024-05-01t12:34:56-0000",
            "2024-05-01T14:34:56+02",
            "2024-05-01T14:04:56+0130",
            "2024-05-01T07:04:56-05:30",
            "2024-05-01T14:34:57+02:00:01",
            "2024-05-01T10:34:57-01:59:59",
        ] {
            assert_eq!(nanos(text), utc, "{text}");
        }
    }

    #[test]
    fn fractions_take_one_to_nine_digits() {
        assert_eq!(nanos("1970-01-01T00:00:00.1Z"), 100_000_000);
        assert_eq!(nanos("1970-01-01T00:00:00.000000001Z"), 1);
        assert_eq!(nanos("1970-01-01T00:00:00.123456789Z"), 123_456_789);
        assert_eq!(nanos("1969-12-31T23:59:59.5Z"), -500_000_000);
    }

    #[test]
    fn calendar_and_clock_ranges_are_enforced() {
        let cases = [
            ("2023-02-29T00:00:00Z", "day", 29),
            ("2024-02-30T00:00:00Z", "day", 30),
            ("1900-02-29T00:00:00Z", "day", 29),
            ("2024-04-31T00:00:00Z", "day", 31),
            ("2024-00-10T00:00:00Z", "month", 0),
            ("2024-13-10T00:00:00Z", "month", 13),
            ("2024-01-00T00:00:00Z", "day", 0),
            ("2024-01-01T25:00:00Z", "hour", 25),
            ("2024-01-01T24:00:00Z", "hour", 24),
            ("2024-01-01T23:60:00Z", "minute", 60),
            ("2024-01-01T23:59:60Z", "second", 60),
            ("2024-01-01T00:00:00+24:00", "offset hour", 24),
            ("2024-01-01T00:00:00+01:60", "offset minute", 60),
            ("2024-01-01T00:00:00+01:00:60", "offset second", 60),
        ];
        for (text, field, value) in cases {
            assert_eq!(
                Timestamp::parse(text),
                Err(TimestampError::OutOfRange {
                    text: text.into(),
                    field,
                    value
                }),
                "{text}"
            );
        }
        assert!(Timestamp::parse("2000-02-29T00:00:00Z").is_ok());
        assert!(Timestamp::parse("2024-02-29T00:00:00Z").is_ok());
    }

    #[test]
    fn malformed_text_is_a_syntax_error_at_the_right_byte() {
        let cases = [
            ("", 0),
            ("2024-05-01", 10),
            ("2024-05-01T12:34", 16),
            ("2024-05-01T12:34:56", 19),
            ("2024-05-01T12:34:56.Z", 20),
            ("2024-05-01T12:34:56.1234567890Z", 29),
            ("2024-05-01T12:34:56+1", 21),
            ("2024-05-01T12:34:56+01:0", 24),
            ("2024-05-01T12:34:56+013", 23),
            ("2024-05-01T12:34:56+01:00:0", 27),
            ("2024-05-01T12:34:56Z ", 20),
            ("2024-05-01X12:34:56Z", 10),
            ("24-05-01T12:34:56Z", 2),
            ("2024-5-01T12:34:56Z", 6),
            ("2024-05-01T12:34:56UTC", 19),
            (" 2024-05-01T12:34:56Z", 0),
            ("２０２４-05-01T12:34:56Z", 0),
        ];
        for (text, position) in cases {
            match Timestamp::parse(text) {
                Err(TimestampError::Syntax { position: at, .. }) => {
                    assert_eq!(at, position, "{text:?}")
                }
                other => panic!("{text:?}: expected a syntax error, got {other:?}"),
            }
        }
    }

    #[test]
    fn errors_name_the_text() {
        let error = Timestamp::parse("2024-02-30T00:00:00Z").unwrap_err();
        assert_eq!(
            error.to_string(),
            "day 30 is out of range in \"2024-02-30T00:00:00Z\""
        );
        let error = Timestamp::parse("yesterday").unwrap_err();
        assert_eq!(
            error.to_string(),
            "expected a 4-digit year at byte 0 of \"yesterday\""
        );
    }

    #[test]
    fn text_is_kept_verbatim_and_serialised_as_a_string() {
        let timestamp: Timestamp = "2024-05-01 12:34:56.5+02".parse().unwrap();
        assert_eq!(timestamp.as_str(), "2024-05-01 12:34:56.5+02");
        assert_eq!(timestamp.to_string(), "2024-05-01 12:34:56.5+02");
        assert_eq!(
            serde_json::to_string(&timestamp).unwrap(),
            "\"2024-05-01 12:34:56.5+02\""
        );
    }

    /// Random field values, some deliberately out of range, rendered in every accepted form.
    fn fields() -> impl Strategy<Value = (u32, u32, u32, u32, u32, u32, Option<String>, i32, u8)> {
        (
            0u32..=9999,
            0u32..=13,
            0u32..=32,
            0u32..=24,
            0u32..=60,
            0u32..=59,
            proptest::option::of("[0-9]{1,9}"),
            -86_399i32..=86_399,
            0u8..4,
        )
    }

    proptest! {
        #[test]
        fn agrees_with_chrono(
            (year, month, day, hour, minute, second, fraction, offset, form) in fields(),
            separator in prop::sample::select(vec!['T', 't', ' ']),
        ) {
            let fraction = fraction.map(|digits| format!(".{digits}")).unwrap_or_default();
            let sign = if offset < 0 { '-' } else { '+' };
            let (oh, om, os) = (offset.unsigned_abs() / 3600, offset.unsigned_abs() / 60 % 60, offset.unsigned_abs() % 60);
            let local = format!("{year:04}-{month:02}-{day:02}{separator}{hour:02}:{minute:02}:{second:02}{fraction}");
            // chrono's RFC 3339 parser only takes ±HH:MM, so it sees the offset rounded to that form.
            let whole_minutes = (oh, om, 0);
            let (ours, oracle_offset) = match form {
                0 => (format!("{local}{sign}{oh:02}:{om:02}:{os:02}"), (oh, om, os)),
                1 => (format!("{local}{sign}{oh:02}:{om:02}"), whole_minutes),
                2 => (format!("{local}{sign}{oh:02}{om:02}"), whole_minutes),
                _ => (format!("{local}{sign}{oh:02}"), (oh, 0, 0)),
            };
            let oracle_text = format!("{local}{sign}{:02}:{:02}", oracle_offset.0, oracle_offset.1);
            let oracle = DateTime::parse_from_rfc3339(&oracle_text)
                .ok()
                // chrono accepts leap second 60; PostgreSQL never writes it and we refuse it.
                .filter(|_| second < 60)
                .map(|time| {
                    let extra = if offset < 0 { -i128::from(oracle_offset.2) } else { i128::from(oracle_offset.2) };
                    i128::from(time.timestamp()) * NANOS_PER_SECOND
                        + i128::from(time.timestamp_subsec_nanos())
                        - extra * NANOS_PER_SECOND
                });
            prop_assert_eq!(Timestamp::parse(&ours).ok().map(|t| t.unix_nanos()), oracle, "{}", ours);
        }

        #[test]
        fn valid_dates_are_exactly_chronos(year in 0i32..=9999, month in 1u32..=12, day in 1u32..=31) {
            let text = format!("{year:04}-{month:02}-{day:02}T00:00:00Z");
            prop_assert_eq!(
                Timestamp::parse(&text).is_ok(),
                NaiveDate::from_ymd_opt(year, month, day).is_some()
            );
        }

        #[test]
        fn never_panics(text in "\\PC{0,40}") {
            let _ = Timestamp::parse(&text);
        }
    }
}
