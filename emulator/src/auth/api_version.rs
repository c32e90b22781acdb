//! `X-Supabase-Api-Version`: the date of the API behaviour a client expects (GoTrue
//! internal/api/apiversions.go). Only one later version exists, 2024-01-01; any date from then on
//! selects it, an earlier date or an unparseable value the initial behaviour.

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use chrono::NaiveDate;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiVersion {
    Initial,
    V2024_01_01,
}

impl ApiVersion {
    pub const HEADER: HeaderName = HeaderName::from_static("x-supabase-api-version");

    pub fn of_request(headers: &HeaderMap) -> ApiVersion {
        headers
            .get(ApiVersion::HEADER)
            .and_then(|value| value.to_str().ok())
            .map_or(ApiVersion::Initial, ApiVersion::closest)
    }

    /// GoTrue's `DetermineClosestAPIVersion`, with Go's strict `2006-01-02` layout.
    pub fn closest(date: &str) -> ApiVersion {
        match parse_date(date) {
            Some(date)
                if date >= NaiveDate::from_ymd_opt(2024, 1, 1).expect("2024-01-01 is a date") =>
            {
                ApiVersion::V2024_01_01
            }
            _ => ApiVersion::Initial,
        }
    }

    /// The value a response echoes (GoTrue echoes every version but the initial one).
    pub fn echo(self) -> Option<HeaderValue> {
        match self {
            ApiVersion::Initial => None,
            ApiVersion::V2024_01_01 => Some(HeaderValue::from_static("2024-01-01")),
        }
    }
}

fn parse_date(text: &str) -> Option<NaiveDate> {
    let bytes = text.as_bytes();
    let shape_ok = bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(index, byte)| index == 4 || index == 7 || byte.is_ascii_digit());
    if !shape_ok {
        return None;
    }
    let number = |range: std::ops::Range<usize>| text[range].parse::<u32>().ok();
    let year = i32::try_from(number(0..4)?).ok()?;
    NaiveDate::from_ymd_opt(year, number(5..7)?, number(8..10)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_2024_01_01_select_the_new_version() {
        assert_eq!(ApiVersion::closest("2024-01-01"), ApiVersion::V2024_01_01);
        assert_eq!(ApiVersion::closest("2031-12-31"), ApiVersion::V2024_01_01);
        assert_eq!(ApiVersion::closest("2023-12-31"), ApiVersion::Initial);
    }

    #[test]
    fn malformed_dates_select_the_initial_version() {
        for text in [
            "",
            "2024-1-01",
            "2024-01-1",
            "2024/01/01",
            "2024-02-30",
            "latest",
        ] {
            assert_eq!(ApiVersion::closest(text), ApiVersion::Initial, "{text}");
        }
    }

    #[test]
    fn only_the_new_version_is_echoed() {
        assert_eq!(ApiVersion::Initial.echo(), None);
        assert_eq!(
            ApiVersion::V2024_01_01.echo().unwrap(),
            HeaderValue::from_static("2024-01-01")
        );
    }
}
