//! The entry schema, meaning the JSON shape of the rows (not the database schema a request
//! targets): strict validation of the entry list PostgREST returns; the body text is parsed once,
//! here.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::logbook::entry::Entry;
use crate::logbook::json_shape::{describe, other_shapes, read_fields, Shape, ShapeVisitor};
use crate::logbook::timestamp::{parse_unix_nanos, Timestamp};

/// Why a successful response body is not a list of entries.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    #[error("response body is not valid JSON: {reason}")]
    InvalidJson { reason: String },
    #[error("expected an array of entries, found {found}")]
    NotAnArray { found: String },
    #[error("entry {index}: expected an object, found {found}")]
    NotAnObject { index: usize, found: String },
    #[error("entry {index}: field \"{field}\": expected {expected}, found {found}")]
    Field {
        index: usize,
        field: &'static str,
        expected: &'static str,
        found: String,
    },
}

impl SchemaError {
    /// A field of the entry at `index` that is not what `expected` says: `found` is what it held.
    pub(crate) fn mismatch(
        index: usize,
        field: &'static str,
        expected: &'static str,
        found: Option<&Shape<'_>>,
    ) -> Self {
        SchemaError::Field {
            index,
            field,
            expected,
            found: describe(found),
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            SchemaError::InvalidJson { .. } => "invalid_json",
            _ => "schema_mismatch",
        }
    }

    /// The position of the offending entry in the server's array, if the body was an array.
    pub fn index(&self) -> Option<usize> {
        match self {
            SchemaError::NotAnObject { index, .. } | SchemaError::Field { index, .. } => {
                Some(*index)
            }
            SchemaError::InvalidJson { .. } | SchemaError::NotAnArray { .. } => None,
        }
    }

    pub fn field(&self) -> Option<&'static str> {
        match self {
            SchemaError::Field { field, .. } => Some(field),
            _ => None,
        }
    }

    pub fn expected(&self) -> Option<&'static str> {
        match self {
            SchemaError::InvalidJson { .. } => None,
            SchemaError::NotAnArray { .. } => Some("an array of entries"),
            SchemaError::NotAnObject { .. } => Some("an object"),
            SchemaError::Field { expected, .. } => Some(expected),
        }
    }

    pub fn found(&self) -> Option<&str> {
        match self {
            SchemaError::InvalidJson { .. } => None,
            SchemaError::NotAnArray { found }
            | SchemaError::NotAnObject { found, .. }
            | SchemaError::Field { found, .. } => Some(found),
        }
    }
}

/// Parses a JSON array of `{id: number, created_at: timestamp string, name: string, message:
/// string}` objects, in the server's order. Extra fields are ignored; a key given twice counts
/// with its last value; the first mismatch (by entry, then field) is reported, and a body that is
/// not JSON at all is reported as such even when an earlier entry is already wrong.
///
/// ```
/// use geocache_core::logbook::schema::parse_entries;
/// use geocache_core::SchemaError;
///
/// let entries = parse_entries(
///     r#"[{"id": 7, "created_at": "2026-05-01T10:00:00+00:00", "name": "Ada", "message": "Hi"}]"#,
/// )?;
/// assert_eq!(entries[0].id, 7.0);
/// assert_eq!(entries[0].created_at.as_str(), "2026-05-01T10:00:00+00:00");
///
/// let error = parse_entries(r#"{"id": 7}"#).unwrap_err();
/// assert_eq!(error, SchemaError::NotAnArray { found: "object".into() });
/// # Ok::<(), SchemaError>(())
/// ```
pub fn parse_entries(body: &str) -> Result<Vec<Entry>, SchemaError> {
    let mut entries = Vec::new();
    validate_entries(body, |entry| {
        entries.push(Entry {
            id: entry.id,
            created_at: Timestamp::from_validated(entry.created_at.into_owned(), entry.instant),
            name: entry.name.into_owned(),
            message: entry.message.into_owned(),
        });
    })?;
    Ok(entries)
}

/// One entry that passed validation; strings without escapes are borrowed from the body.
#[derive(Debug)]
pub(crate) struct ValidEntry<'a> {
    pub id: f64,
    /// The instant `created_at` denotes, in nanoseconds since the Unix epoch.
    pub instant: i128,
    pub created_at: Cow<'a, str>,
    pub name: Cow<'a, str>,
    pub message: Cow<'a, str>,
}

/// The validation behind [`parse_entries`], in one pass over the text: no JSON tree is built,
/// strings without escapes are not copied, and each valid entry is handed to `each` as it is read
/// (entries after the first mismatch are only checked for syntax). On an error, what `each` was
/// given is to be thrown away.
pub(crate) fn validate_entries<'a>(
    body: &'a str,
    mut each: impl FnMut(ValidEntry<'a>),
) -> Result<(), SchemaError> {
    read_rows(body, &ROW_KEYS, &mut |index, fields| {
        entry(index, fields).map(&mut each)
    })
}

/// The fields [`read_rows`] reads from each row, in this order.
pub(crate) const ROW_KEYS: [&str; 4] = ["id", "created_at", "name", "message"];

/// One row's fields (by the keys [`read_rows`] was given), `None` where the row has no such key.
pub(crate) type RowFields<'de> = [Option<Shape<'de>>; 4];

/// What checks each row for [`read_rows`]: its position and fields, `Err` for a mismatch.
pub(crate) type RowCheck<'a, 'de> =
    &'a mut dyn FnMut(usize, RowFields<'de>) -> Result<(), SchemaError>;

/// Reads a JSON array of objects, handing each object's `keys` fields to `check`. The
/// first mismatch (a row that is not an object, or `check`'s error) is the answer: the rows after
/// it are only read through, so a body that is not JSON at all is reported as such even when an
/// earlier row is already wrong. The entry list and the short reads `signLogbook` makes (which
/// select fewer columns) and the changes feed all go through this one reader: each visitor type
/// would be another copy of serde_json's parser in the wasm, hence the `dyn` check and the keys
/// as a value.
pub(crate) fn read_rows<'de>(
    body: &'de str,
    keys: &'static [&'static str; 4],
    check: RowCheck<'_, 'de>,
) -> Result<(), SchemaError> {
    let mut deserializer = serde_json::Deserializer::from_str(body);
    deserializer
        .deserialize_any(ListVisitor { keys, check })
        .and_then(|outcome| deserializer.end().map(|()| outcome))
        .map_err(|error| SchemaError::InvalidJson {
            reason: error.to_string(),
        })?
}

/// The whole body: an array of rows, each handed to the check, or a
/// [`SchemaError::NotAnArray`].
struct ListVisitor<'a, 'de> {
    keys: &'static [&'static str; 4],
    check: RowCheck<'a, 'de>,
}

impl<'de> Visitor<'de> for ListVisitor<'_, 'de> {
    type Value = Result<(), SchemaError>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an array of entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Self::Value, A::Error> {
        let mut mismatch = None;
        let mut index = 0;
        while let Some(row) = items.next_element_seed(RowSeed {
            index,
            keys: self.keys,
            // After the first mismatch the rest is only read through, to check the syntax.
            skip: mismatch.is_some(),
        })? {
            if let Some(Err(error)) =
                row.map(|row| row.and_then(|fields| (self.check)(index, fields)))
            {
                mismatch = Some(error);
            }
            index += 1;
        }
        Ok(match mismatch {
            Some(error) => Err(error),
            None => Ok(()),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, entries: A) -> Result<Self::Value, A::Error> {
        ShapeVisitor.visit_map(entries).map(not_an_array)
    }

    other_shapes!(|_, shape| not_an_array(shape));
}

fn not_an_array<T>(shape: Shape<'_>) -> Result<T, SchemaError> {
    Err(SchemaError::NotAnArray {
        found: describe(Some(&shape)),
    })
}

/// One item of the array: `None` when skipped, else its fields or why it is not an object.
struct RowSeed {
    index: usize,
    keys: &'static [&'static str; 4],
    skip: bool,
}

type RowOutcome<'de> = Option<Result<RowFields<'de>, SchemaError>>;

impl<'de> DeserializeSeed<'de> for RowSeed {
    type Value = RowOutcome<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        if self.skip {
            IgnoredAny::deserialize(deserializer)?;
            return Ok(None);
        }
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowSeed {
    type Value = RowOutcome<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an entry")
    }

    fn visit_map<A: MapAccess<'de>>(self, fields: A) -> Result<Self::Value, A::Error> {
        Ok(Some(Ok(read_fields(fields, *self.keys)?)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, items: A) -> Result<Self::Value, A::Error> {
        let shape = ShapeVisitor.visit_seq(items)?;
        Ok(not_an_object(self, shape))
    }

    other_shapes!(not_an_object);
}

fn not_an_object<'de>(seed: RowSeed, shape: Shape<'_>) -> RowOutcome<'de> {
    Some(Err(SchemaError::NotAnObject {
        index: seed.index,
        found: describe(Some(&shape)),
    }))
}

/// Checks the fields in order: id, created_at, name, message.
fn entry<'de>(
    index: usize,
    [id, created_at, name, message]: RowFields<'de>,
) -> Result<ValidEntry<'de>, SchemaError> {
    let mismatch = |field: &'static str, expected: &'static str, found: &Option<Shape<'_>>| {
        SchemaError::mismatch(index, field, expected, found.as_ref())
    };
    let id = match id.as_ref().and_then(Shape::as_f64) {
        Some(number) => number,
        None => return Err(mismatch("id", "a number", &id)),
    };
    let (created_at, instant) = match created_at {
        Some(Shape::String(text)) => match parse_unix_nanos(&text) {
            Ok(instant) => (text, instant),
            Err(_) => {
                let found = Some(Shape::String(text));
                return Err(mismatch("created_at", "a timestamp string", &found));
            }
        },
        other => return Err(mismatch("created_at", "a timestamp string", &other)),
    };
    let string = |field: &'static str, value: Option<Shape<'de>>| match value {
        Some(Shape::String(text)) => Ok(text),
        other => Err(mismatch(field, "a string", &other)),
    };
    Ok(ValidEntry {
        id,
        instant,
        created_at,
        name: string("name", name)?,
        message: string("message", message)?,
    })
}

/// The validation as it was first written, over a `serde_json::Value` tree: the tests hold the
/// one-pass parser to exactly its answers, errors included.
#[cfg(test)]
pub(crate) mod reference {
    use serde_json::{Map, Value};

    use super::SchemaError;
    use crate::logbook::entry::Entry;
    use crate::logbook::timestamp::Timestamp;

    pub fn parse_entries(body: &str) -> Result<Vec<Entry>, SchemaError> {
        let value: Value =
            serde_json::from_str(body).map_err(|error| SchemaError::InvalidJson {
                reason: error.to_string(),
            })?;
        let Value::Array(items) = value else {
            return Err(SchemaError::NotAnArray {
                found: describe(Some(&value)),
            });
        };
        items
            .iter()
            .enumerate()
            .map(|(index, item)| match item {
                Value::Object(fields) => entry(index, fields),
                other => Err(SchemaError::NotAnObject {
                    index,
                    found: describe(Some(other)),
                }),
            })
            .collect()
    }

    fn entry(index: usize, fields: &Map<String, Value>) -> Result<Entry, SchemaError> {
        let mismatch = |field: &'static str, expected: &'static str| SchemaError::Field {
            index,
            field,
            expected,
            found: describe(fields.get(field)),
        };
        let id = match fields.get("id") {
            Some(Value::Number(number)) => number.as_f64(),
            _ => None,
        }
        .ok_or_else(|| mismatch("id", "a number"))?;
        let created_at = match fields.get("created_at") {
            Some(Value::String(text)) => Timestamp::parse(text).ok(),
            _ => None,
        }
        .ok_or_else(|| mismatch("created_at", "a timestamp string"))?;
        let string = |field: &'static str| match fields.get(field) {
            Some(Value::String(text)) => Ok(text.clone()),
            _ => Err(mismatch(field, "a string")),
        };
        Ok(Entry {
            id,
            created_at,
            name: string("name")?,
            message: string("message")?,
        })
    }

    fn describe(value: Option<&Value>) -> String {
        match value {
            None => "nothing".into(),
            Some(Value::Null) => "null".into(),
            Some(Value::Bool(flag)) => format!("boolean {flag}"),
            Some(Value::Number(number)) => format!("number {number}"),
            Some(Value::String(text)) if text.chars().count() > 60 => {
                let shown: String = text.chars().take(60).collect();
                format!("string {}…", Value::String(shown))
            }
            Some(string @ Value::String(_)) => format!("string {string}"),
            Some(Value::Array(items)) => format!("array of {} items", items.len()),
            Some(Value::Object(_)) => "object".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logbook::test_support::{entries, timestamp_text};
    use proptest::prelude::*;
    use serde_json::Value;

    const VALID: &str =
        r#"{"id":1,"created_at":"2024-05-01T12:34:56.789+00:00","name":"n","message":"m"}"#;

    fn with(field: &str, raw: &str) -> String {
        let mut value: Value = serde_json::from_str(VALID).unwrap();
        let object = value.as_object_mut().unwrap();
        if raw.is_empty() {
            object.remove(field);
        } else {
            object.insert(field.into(), serde_json::from_str(raw).unwrap());
        }
        format!("[{VALID},{VALID},{value}]")
    }

    #[test]
    fn valid_entries_parse_and_keep_server_text() {
        let body = r#"[{"id":2,"created_at":"2024-05-01 12:00:00+02","name":"<b>x</b>","message":"","extra":[1]},
                       {"id":1.5e3,"created_at":"2024-05-01T12:34:56.789+00:00","name":"n","message":"m"}]"#;
        let parsed = parse_entries(body).unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].id, 2.0);
        assert_eq!(parsed[0].created_at.as_str(), "2024-05-01 12:00:00+02");
        assert_eq!(parsed[0].name, "<b>x</b>");
        assert_eq!(parsed[0].message, "");
        assert_eq!(parsed[1].id, 1500.0);
        assert_eq!(parse_entries("[]").unwrap(), vec![]);
    }

    #[test]
    fn field_mismatches_name_index_field_expectation_and_value() {
        let cases = [
            ("created_at", "5", "entry 2: field \"created_at\": expected a timestamp string, found number 5"),
            ("created_at", "\"2024-02-30T00:00:00Z\"", "entry 2: field \"created_at\": expected a timestamp string, found string \"2024-02-30T00:00:00Z\""),
            ("created_at", "\"2024-05-01T25:00:00Z\"", "entry 2: field \"created_at\": expected a timestamp string, found string \"2024-05-01T25:00:00Z\""),
            ("created_at", "", "entry 2: field \"created_at\": expected a timestamp string, found nothing"),
            ("id", "\"1\"", "entry 2: field \"id\": expected a number, found string \"1\""),
            ("id", "null", "entry 2: field \"id\": expected a number, found null"),
            ("name", "true", "entry 2: field \"name\": expected a string, found boolean true"),
            ("name", "[1,2]", "entry 2: field \"name\": expected a string, found array of 2 items"),
            ("message", "{}", "entry 2: field \"message\": expected a string, found object"),
            ("message", "", "entry 2: field \"message\": expected a string, found nothing"),
        ];
        for (field, raw, message) in cases {
            let error = parse_entries(&with(field, raw)).unwrap_err();
            assert_eq!(error.to_string(), message);
            assert_eq!(error.code(), "schema_mismatch");
            assert_eq!(error.index(), Some(2));
            assert_eq!(error.field(), Some(field));
        }
    }

    #[test]
    fn integer_ids_become_the_double_js_gives() {
        let body = |id: &str| {
            format!(
                r#"[{{"id":{id},"created_at":"2024-05-01T12:00:00Z","name":"n","message":"m"}}]"#
            )
        };
        let cases = [
            ("9007199254740993", 9007199254740992.0),
            ("9223372036854775807", 9223372036854775807.0),
            ("18446744073709551615", 18446744073709551615.0),
            ("-9223372036854775808", -9223372036854775808.0),
            ("12345678901234567", 12345678901234568.0),
            ("0", 0.0),
        ];
        for (id, expected) in cases {
            assert_eq!(parse_entries(&body(id)).unwrap()[0].id, expected, "{id}");
        }
    }

    #[test]
    fn the_first_bad_field_of_the_first_bad_entry_is_reported() {
        let body = r#"[{"id":"x","created_at":1},{"id":"y"}]"#;
        let error = parse_entries(body).unwrap_err();
        assert_eq!(error.index(), Some(0));
        assert_eq!(error.field(), Some("id"));
        assert_eq!(error.expected(), Some("a number"));
        assert_eq!(error.found(), Some("string \"x\""));
    }

    #[test]
    fn non_arrays_and_non_objects_are_refused() {
        let error = parse_entries(r#"{"id":1}"#).unwrap_err();
        assert_eq!(
            error.to_string(),
            "expected an array of entries, found object"
        );
        assert_eq!((error.index(), error.field()), (None, None));
        assert_eq!(error.expected(), Some("an array of entries"));

        let error = parse_entries(&format!("[{VALID},\"entry\"]")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "entry 1: expected an object, found string \"entry\""
        );
        assert_eq!((error.index(), error.field()), (Some(1), None));
        assert_eq!(error.code(), "schema_mismatch");
    }

    #[test]
    fn text_that_is_not_json_is_invalid_json() {
        for body in ["", "<html>502</html>", "[{]", "[] []"] {
            let error = parse_entries(body).unwrap_err();
            assert_eq!(error.code(), "invalid_json", "{body:?}");
            assert!(error
                .to_string()
                .starts_with("response body is not valid JSON: "));
            assert_eq!((error.index(), error.found()), (None, None));
        }
    }

    #[test]
    fn long_strings_are_cut_in_messages() {
        let long = "é".repeat(100);
        let error = parse_entries(&with("id", &format!("\"{long}\""))).unwrap_err();
        assert_eq!(
            error.found(),
            Some(format!("string \"{}\"…", "é".repeat(60)).as_str())
        );
    }

    /// A replacement of the wrong type for each field, `None` meaning the field is removed.
    fn wrong_value(field: &'static str) -> BoxedStrategy<Option<Value>> {
        let common = prop_oneof![
            Just(None),
            Just(Some(Value::Null)),
            any::<bool>().prop_map(|flag| Some(Value::Bool(flag))),
            Just(Some(serde_json::json!([]))),
            Just(Some(serde_json::json!({"id": 1}))),
        ];
        match field {
            "id" => prop_oneof![
                common,
                timestamp_text().prop_map(|t| Some(Value::String(t)))
            ]
            .boxed(),
            "created_at" => prop_oneof![
                common,
                any::<i32>().prop_map(|n| Some(Value::from(n))),
                "[a-zA-Z0-9 :.+-]{0,30}".prop_map(|t| Some(Value::String(t))),
            ]
            .boxed(),
            _ => prop_oneof![common, any::<f64>().prop_map(|n| Some(Value::from(n)))].boxed(),
        }
    }

    fn mutation() -> impl Strategy<Value = (Vec<Entry>, usize, &'static str, Option<Value>)> {
        (
            entries(1..8),
            prop::sample::select(vec!["id", "created_at", "name", "message"]),
        )
            .prop_flat_map(|(entries, field)| {
                let len = entries.len();
                (Just(entries), 0..len, Just(field), wrong_value(field))
            })
    }

    proptest! {
        #[test]
        fn any_valid_array_round_trips(entries in entries(0..12)) {
            let body = serde_json::to_string(&entries).unwrap();
            prop_assert_eq!(parse_entries(&body).unwrap(), entries);
        }

        #[test]
        fn any_wrong_type_is_rejected_at_its_entry_and_field(
            (entries, index, field, replacement) in mutation()
        ) {
            let mut value = serde_json::to_value(&entries).unwrap();
            let object = value[index].as_object_mut().unwrap();
            // A timestamp-looking string in created_at may happen to be valid: then it is no mutation.
            if let Some(Value::String(text)) = &replacement {
                prop_assume!(field != "created_at" || Timestamp::parse(text).is_err());
            }
            match replacement {
                Some(replacement) => object.insert(field.into(), replacement),
                None => object.remove(field),
            };
            let error = parse_entries(&value.to_string()).unwrap_err();
            prop_assert_eq!(error.index(), Some(index));
            prop_assert_eq!(error.field(), Some(field));
            prop_assert_eq!(error.code(), "schema_mismatch");
        }

        /// Random edits of valid bodies (and random text) get exactly the reference's answer.
        #[test]
        fn agrees_with_the_reference_on_any_text(body in prop_oneof![
            "[\\[\\]{}\",:a-z0-9.\\\\ -]{0,40}",
            entries(1..4).prop_flat_map(|entries| {
                let body = serde_json::to_string(&entries).unwrap();
                let len = body.len();
                (Just(body), 0..len, "[\\[\\]{}\",:a-z0-9.\\\\ -]{0,3}", 0..3usize)
            }).prop_map(|(body, at, insert, removed)| {
                let at = (0..=at).rev().find(|&at| body.is_char_boundary(at)).unwrap_or(0);
                let end = (at..=body.len()).find(|&end| end >= at + removed && body.is_char_boundary(end)).unwrap_or(body.len());
                format!("{}{insert}{}", &body[..at], &body[end..])
            }),
        ]) {
            prop_assert_eq!(parse_entries(&body), reference::parse_entries(&body), "{:?}", body);
        }

        #[test]
        fn extra_fields_are_ignored(entries in entries(1..5), extra in any::<String>()) {
            let mut value = serde_json::to_value(&entries).unwrap();
            for item in value.as_array_mut().unwrap() {
                item.as_object_mut().unwrap().insert(format!("x_{extra}"), Value::from(extra.clone()));
            }
            prop_assert_eq!(parse_entries(&value.to_string()).unwrap(), entries);
        }
    }
}
