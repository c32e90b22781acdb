//! Column values of a change typed as realtime-js types them (`lib/transformers.ts`): the
//! server sends a record's values with each column's PostgreSQL type.

use serde_json::{Map, Number, Value};

/// `record` with each value converted by its column's type; columns missing from `columns`
/// keep their value.
pub fn convert_record(columns: &[(String, String)], record: &Map<String, Value>) -> Value {
    let converted = record.iter().map(|(name, value)| {
        let column = columns.iter().find(|(column, _)| column == name);
        let value = match column {
            Some((_, column_type)) => convert_cell(column_type, value.clone()),
            None => value.clone(),
        };
        (name.clone(), value)
    });
    Value::Object(converted.collect())
}

/// One value: booleans from `t`/`f`, numbers from their text, JSON from its text, `timestamp`
/// (without time zone) with the date and time joined by `T` as PostgREST writes it, arrays
/// (`_<type>`) element by element; anything else as it came.
pub fn convert_cell(column_type: &str, value: Value) -> Value {
    if let Some(element_type) = column_type.strip_prefix('_') {
        return to_array(element_type, value);
    }
    let Value::String(text) = value else {
        return value;
    };
    match column_type {
        "bool" => match text.as_str() {
            "t" => Value::Bool(true),
            "f" => Value::Bool(false),
            _ => Value::String(text),
        },
        "float4" | "float8" | "int2" | "int4" | "int8" | "numeric" | "oid" => {
            match parse_float(&text).and_then(Number::from_f64) {
                Some(number) => Value::Number(normalise(number)),
                None => Value::String(text),
            }
        }
        "json" | "jsonb" => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        "timestamp" => Value::String(text.replacen(' ', "T", 1)),
        _ => Value::String(text),
    }
}

/// A whole float as an integer, so `1` reads back as `1` and not `1.0` (JS has one number).
fn normalise(number: Number) -> Number {
    match number.as_f64() {
        Some(float) if float.fract() == 0.0 && float.abs() < 9_007_199_254_740_992.0 => {
            // Exact: a whole number below 2^53.
            Number::from(float as i64)
        }
        _ => number,
    }
}

/// JS `parseFloat`: the longest leading decimal number after whitespace, or `None` (NaN).
fn parse_float(text: &str) -> Option<f64> {
    let text = text.trim_start();
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    if unsigned.starts_with("Infinity") {
        // JSON has no infinity: the caller keeps the text.
        return None;
    }
    let bytes = text.as_bytes();
    let mut end = 0;
    let digits = |from: usize| {
        bytes[from..]
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count()
    };
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        end = 1;
    }
    let whole = digits(end);
    end += whole;
    let mut fraction = 0;
    if bytes.get(end) == Some(&b'.') {
        fraction = digits(end + 1);
        if whole > 0 || fraction > 0 {
            end += 1 + fraction;
        }
    }
    if whole == 0 && fraction == 0 {
        return None;
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut exponent = end + 1;
        if matches!(bytes.get(exponent), Some(b'+' | b'-')) {
            exponent += 1;
        }
        let exponent_digits = digits(exponent);
        if exponent_digits > 0 {
            end = exponent + exponent_digits;
        }
    }
    text[..end].parse().ok()
}

/// A PostgreSQL array literal `{a,b}` read as JSON (`[a,b]`), each element converted.
fn to_array(element_type: &str, value: Value) -> Value {
    let Value::String(text) = value else {
        return value;
    };
    let Some(inner) = text
        .strip_prefix('{')
        .and_then(|rest| rest.strip_suffix('}'))
    else {
        return Value::String(text);
    };
    match serde_json::from_str::<Vec<Value>>(&format!("[{inner}]")) {
        Ok(items) => Value::Array(
            items
                .into_iter()
                .map(|item| convert_cell(element_type, item))
                .collect(),
        ),
        Err(_) => Value::String(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_type_is_converted_as_realtime_js_does() {
        let cases = [
            ("bool", json!("t"), json!(true)),
            ("bool", json!("f"), json!(false)),
            ("bool", json!("x"), json!("x")),
            ("int8", json!("42"), json!(42)),
            ("int4", json!("-7"), json!(-7)),
            ("float8", json!("1.5"), json!(1.5)),
            ("numeric", json!("12abc"), json!(12)),
            ("numeric", json!(" 2e3"), json!(2000)),
            ("numeric", json!("abc"), json!("abc")),
            ("numeric", json!("NaN"), json!("NaN")),
            ("float8", json!("Infinity"), json!("Infinity")),
            ("int8", json!(5), json!(5)),
            ("jsonb", json!(r#"{"a":[1]}"#), json!({"a": [1]})),
            ("json", json!("{bad"), json!("{bad")),
            (
                "timestamp",
                json!("2026-05-01 10:00:00"),
                json!("2026-05-01T10:00:00"),
            ),
            (
                "timestamptz",
                json!("2026-05-01 10:00:00+00"),
                json!("2026-05-01 10:00:00+00"),
            ),
            ("text", json!("t"), json!("t")),
            ("_int4", json!("{1,2,3}"), json!([1, 2, 3])),
            ("_bool", json!("{}"), json!([])),
            ("_text", json!(r#"{"a","b"}"#), json!(["a", "b"])),
            ("_text", json!("{a,b}"), json!("{a,b}")),
            ("_int4", json!([1, 2]), json!([1, 2])),
            ("int8", Value::Null, Value::Null),
        ];
        for (column_type, value, expected) in cases {
            assert_eq!(
                convert_cell(column_type, value.clone()),
                expected,
                "{column_type} {value}"
            );
        }
    }

    #[test]
    fn records_convert_only_known_columns() {
        let columns = vec![
            ("id".to_owned(), "int8".to_owned()),
            ("ok".to_owned(), "bool".to_owned()),
        ];
        let record = json!({"id": "3", "ok": "t", "name": "7"});
        let Value::Object(record) = record else {
            unreachable!()
        };
        assert_eq!(
            convert_record(&columns, &record),
            json!({"id": 3, "ok": true, "name": "7"})
        );
    }
}
