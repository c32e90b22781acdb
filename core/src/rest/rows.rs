//! The short row lists `signLogbook` reads back (`select=id` for the watermark, `select=id,name,
//! message` to find its entry), checked in one pass by the entry list's own row reader: no JSON
//! tree, strings without escapes borrowed from the body, and no second copy of the parser in the
//! wasm.

use std::borrow::Cow;

use crate::json_shape::{describe, Shape};
use crate::schema::{read_rows, SchemaError};

/// The largest `id` of a `[{"id": …}, …]` body; `None` for an empty array.
pub fn max_id(body: &str) -> Result<Option<i64>, SchemaError> {
    let mut max = None;
    read_rows(body, &mut |index, [id, ..]| {
        let id = integer(index, "id", id)?;
        max = max.max(Some(id));
        Ok(())
    })?;
    Ok(max)
}

/// Whether a `[{"id", "name", "message"}, …]` body has a row whose name and message are exactly
/// these (the same Unicode text, so the same UTF-8 bytes). Every row is checked, found or not.
pub fn has_entry(body: &str, name: &str, message: &str) -> Result<bool, SchemaError> {
    let mut found = false;
    read_rows(body, &mut |index, [id, _, row_name, row_message]| {
        integer(index, "id", id)?;
        let row_name = string(index, "name", row_name)?;
        let row_message = string(index, "message", row_message)?;
        found |= row_name == name && row_message == message;
        Ok(())
    })?;
    Ok(found)
}

/// A PostgreSQL bigint: a JSON integer.
fn integer(
    index: usize,
    field: &'static str,
    value: Option<Shape<'_>>,
) -> Result<i64, SchemaError> {
    match &value {
        Some(Shape::Number(number)) => number.as_i64(),
        _ => None,
    }
    .ok_or_else(|| SchemaError::Field {
        index,
        field,
        expected: "an integer",
        found: describe(value.as_ref()),
    })
}

fn string<'a>(
    index: usize,
    field: &'static str,
    value: Option<Shape<'a>>,
) -> Result<Cow<'a, str>, SchemaError> {
    match value {
        Some(Shape::String(text)) => Ok(text),
        other => Err(SchemaError::Field {
            index,
            field,
            expected: "a string",
            found: describe(other.as_ref()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watermark_is_the_largest_id() {
        assert_eq!(max_id("[]"), Ok(None));
        assert_eq!(max_id(r#"[{"id":41}]"#), Ok(Some(41)));
        assert_eq!(
            max_id(r#"[{"id":3},{"id":9007199254740993},{"id":7}]"#),
            Ok(Some(9_007_199_254_740_993))
        );
        assert_eq!(max_id(r#" [ {"x":1,"id":-2} ] "#), Ok(Some(-2)));
    }

    #[test]
    fn ids_must_be_integers() {
        for (body, found) in [
            (r#"[{"id":1.5}]"#, "number 1.5"),
            (r#"[{"id":"1"}]"#, "string \"1\""),
            (r#"[{}]"#, "nothing"),
            (r#"[{"id":null}]"#, "null"),
        ] {
            assert_eq!(
                max_id(body),
                Err(SchemaError::Field {
                    index: 0,
                    field: "id",
                    expected: "an integer",
                    found: found.into()
                }),
                "{body}"
            );
        }
    }

    #[test]
    fn bodies_that_are_not_arrays_of_objects_are_refused() {
        assert_eq!(
            max_id(r#"{"id":1}"#),
            Err(SchemaError::NotAnArray {
                found: "object".into()
            })
        );
        assert_eq!(
            max_id(r#"[{"id":1},5]"#),
            Err(SchemaError::NotAnObject {
                index: 1,
                found: "number 5".into()
            })
        );
        assert!(matches!(
            max_id("<html>"),
            Err(SchemaError::InvalidJson { .. })
        ));
        // A later syntax error wins over an earlier mismatch: the body is not JSON at all.
        assert!(matches!(
            max_id(r#"[{"id":"x"}, {"id":"#),
            Err(SchemaError::InvalidJson { .. })
        ));
    }

    #[test]
    fn the_entry_is_found_only_with_the_same_name_and_message() {
        let body = r#"[
            {"id":5,"name":"Ann","message":"Found it"},
            {"id":6,"name":"Ann","message":"Found it!"},
            {"id":7,"name":"ann","message":"Found it!!"}
        ]"#;
        assert_eq!(has_entry(body, "Ann", "Found it!"), Ok(true));
        assert_eq!(has_entry(body, "Ann", "Found it"), Ok(true));
        for (name, message) in [
            ("ann", "Found it!"),
            ("Ann ", "Found it!"),
            ("Ann", "found it!"),
            ("Bob", "Found it!"),
        ] {
            assert_eq!(
                has_entry(body, name, message),
                Ok(false),
                "{name:?} {message:?}"
            );
        }
        assert_eq!(has_entry("[]", "Ann", "m"), Ok(false));
    }

    #[test]
    fn escaped_and_unescaped_text_compare_as_the_same_characters() {
        let body = r#"[{"id":1,"name":"\u00e9\"q\"","message":"line\nnext 😀"}]"#;
        assert_eq!(has_entry(body, "é\"q\"", "line\nnext 😀"), Ok(true));
        // Composed and decomposed é are different text, as the database stores them.
        assert_eq!(has_entry(body, "e\u{301}\"q\"", "line\nnext 😀"), Ok(false));
    }

    #[test]
    fn every_row_is_checked_even_after_a_match() {
        let body = r#"[{"id":1,"name":"a","message":"m"},{"id":2,"name":null,"message":"m"}]"#;
        assert_eq!(
            has_entry(body, "a", "m"),
            Err(SchemaError::Field {
                index: 1,
                field: "name",
                expected: "a string",
                found: "null".into()
            })
        );
        let body = r#"[{"id":"1","name":"a","message":"m"}]"#;
        assert_eq!(has_entry(body, "a", "m").unwrap_err().field(), Some("id"));
        let body = r#"[{"id":1,"name":"a"}]"#;
        assert_eq!(
            has_entry(body, "a", "m").unwrap_err().field(),
            Some("message")
        );
    }
}
