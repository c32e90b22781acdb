//! proptest strategies shared by the schema and ordering tests.

use std::ops::Range;

use proptest::prelude::*;

use crate::logbook::entry::Entry;
use crate::logbook::timestamp::Timestamp;

/// A valid timestamp in any accepted form (separator, fraction length, offset style).
pub fn timestamp_text() -> impl Strategy<Value = String> {
    (1900u32..2100, 1u32..=12)
        .prop_flat_map(|(year, month)| {
            let days = match month {
                2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            (Just(year), Just(month), 1..=days)
        })
        .prop_flat_map(|(year, month, day)| {
            (
                Just(format!("{year:04}-{month:02}-{day:02}")),
                prop::sample::select(vec!["T", "t", " "]),
                (0u32..24, 0u32..60, 0u32..60),
                proptest::option::of("[0-9]{1,9}"),
                offset_text(),
            )
        })
        .prop_map(
            |(date, separator, (hour, minute, second), fraction, offset)| {
                let fraction = fraction
                    .map(|digits| format!(".{digits}"))
                    .unwrap_or_default();
                format!("{date}{separator}{hour:02}:{minute:02}:{second:02}{fraction}{offset}")
            },
        )
}

fn offset_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Z".to_owned()),
        Just("+00:00".to_owned()),
        (
            prop::sample::select(vec!['+', '-']),
            0u32..16,
            0u32..60,
            0u32..60,
            0u8..4
        )
            .prop_map(|(sign, hours, minutes, seconds, form)| match form {
                0 => format!("{sign}{hours:02}"),
                1 => format!("{sign}{hours:02}{minutes:02}"),
                2 => format!("{sign}{hours:02}:{minutes:02}"),
                _ => format!("{sign}{hours:02}:{minutes:02}:{seconds:02}"),
            }),
    ]
}

pub fn timestamp() -> impl Strategy<Value = Timestamp> {
    timestamp_text()
        .prop_map(|text| Timestamp::parse(&text).expect("generated timestamps are valid"))
}

pub fn entry() -> impl Strategy<Value = Entry> {
    (
        // Written back as serde_json writes an f64 (`123.0`, `1.5e-7`), these parse exactly without
        // its float_roundtrip (see core/Cargo.toml); schema.rs tests big integer literals.
        prop_oneof![
            any::<i32>().prop_map(f64::from),
            any::<i32>().prop_map(|id| f64::from(id) / 4.0),
        ],
        timestamp(),
        any::<String>(),
        any::<String>(),
    )
        .prop_map(|(id, created_at, name, message)| Entry {
            id,
            created_at,
            name,
            message,
        })
}

pub fn entries(len: Range<usize>) -> impl Strategy<Value = Vec<Entry>> {
    prop::collection::vec(entry(), len)
}
