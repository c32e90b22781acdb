//! The entries of a JSON file: our export, or a saved PostgREST read of the table (`select=*`),
//! an array of objects holding exactly `id`, `created_at`, `name` and `message`.

use crate::data::error::Place;
use crate::data::import::{fields, Parsed};
use crate::table::Row;
use serde_json::{Map, Value};

const COLUMNS: [&str; 4] = ["id", "created_at", "name", "message"];

/// Every entry of `bytes`, with its index in the array.
pub fn parse(bytes: &[u8]) -> Result<Vec<Parsed>, (Place, String)> {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let value: Value = serde_json::from_slice(bytes).map_err(|error| {
        (
            Place::Position {
                line: error.line(),
                column: error.column(),
            },
            format!("not JSON ({error})"),
        )
    })?;
    let Value::Array(items) = value else {
        return Err((Place::File, "not a JSON array of entries".to_owned()));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            entry(item)
                .map(|row| Parsed {
                    place: Place::Index(index),
                    row,
                })
                .map_err(|reason| (Place::Index(index), reason))
        })
        .collect()
}

fn entry(item: Value) -> Result<Row, String> {
    let Value::Object(mut object) = item else {
        return Err("not an object".to_owned());
    };
    if let Some(extra) = object.keys().find(|key| !COLUMNS.contains(&key.as_str())) {
        return Err(format!(
            "an unknown field {extra:?}; an entry holds {}",
            COLUMNS.join(", ")
        ));
    }
    let id = match take(&mut object, "id")? {
        Value::Number(number) => number
            .as_i64()
            .ok_or(())
            .and_then(|id| fields::id(&id.to_string()).map_err(|_| ()))
            .map_err(|()| format!("id {number} is not a positive whole number"))?,
        other => return Err(format!("id {other} is not a number")),
    };
    Ok(Row {
        id,
        created_at: fields::created_at(&string(&mut object, "created_at")?)?,
        name: fields::text("name", string(&mut object, "name")?)?,
        message: fields::text("message", string(&mut object, "message")?)?,
    })
}

fn take(object: &mut Map<String, Value>, key: &str) -> Result<Value, String> {
    object.remove(key).ok_or_else(|| format!("no {key}"))
}

fn string(object: &mut Map<String, Value>, key: &str) -> Result<String, String> {
    match take(object, key)? {
        Value::String(text) => Ok(text),
        other => Err(format!("the {key} {other} is not a string")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_postgrest_read() {
        let parsed = parse(
            br#"[{"id":1,"created_at":"2026-11-20T10:11:12.12345+00:00","name":"Ada","message":"a\u0001b"}]"#,
        )
        .unwrap();
        assert_eq!(parsed[0].place, Place::Index(0));
        assert_eq!(
            parsed[0].row,
            Row {
                id: 1,
                created_at: 1_795_169_472_123_450,
                name: "Ada".to_owned(),
                message: "a\u{1}b".to_owned(),
            }
        );
        assert!(parse(b"[]").unwrap().is_empty());
    }

    #[test]
    fn malformed_entries_are_refused_at_their_index() {
        let good = r#"{"id":1,"created_at":"2026-11-20T10:11:12Z","name":"Ada","message":"m"}"#;
        for (bad, says) in [
            (
                r#"{"id":2,"created_at":"2026-11-20T10:11:12Z","name":"Ada"}"#,
                "no message",
            ),
            (
                r#"{"id":2,"created_at":"2026-11-20T10:11:12Z","name":"A","message":"m","x":1}"#,
                "unknown field",
            ),
            (
                r#"{"id":2.5,"created_at":"2026-11-20T10:11:12Z","name":"A","message":"m"}"#,
                "whole number",
            ),
            (
                r#"{"id":"2","created_at":"2026-11-20T10:11:12Z","name":"A","message":"m"}"#,
                "not a number",
            ),
            (
                r#"{"id":2,"created_at":"2026-11-20T10:11:12","name":"A","message":"m"}"#,
                "offset",
            ),
            (
                r#"{"id":2,"created_at":"2026-11-20T10:11:12Z","name":"A","message":"a\u0000"}"#,
                "U+0000",
            ),
            (
                r#"{"id":2,"created_at":"2026-11-20T10:11:12Z","name":null,"message":"m"}"#,
                "not a string",
            ),
            ("[2]", "not an object"),
        ] {
            let (place, reason) = parse(format!("[{good},{bad}]").as_bytes()).unwrap_err();
            assert_eq!(place, Place::Index(1), "{bad}: {reason}");
            assert!(reason.contains(says), "{bad}: {reason}");
        }
    }

    #[test]
    fn text_that_is_not_json_is_refused_where_it_breaks() {
        let (place, _) = parse(b"[\n{\"id\":1,").unwrap_err();
        assert!(
            matches!(place, Place::Position { line: 2, .. }),
            "{place:?}"
        );
        let mut invalid = br#"[{"id":1,"created_at":"2026-11-20T10:11:12Z","name":""#.to_vec();
        invalid.extend_from_slice(b"\xff\"}]");
        assert!(matches!(
            parse(&invalid).unwrap_err().0,
            Place::Position { .. }
        ));
        assert_eq!(parse(b"{}").unwrap_err().0, Place::File);
    }
}
