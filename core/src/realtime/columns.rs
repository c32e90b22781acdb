//! Column values of a change typed as realtime-js types them (`lib/transformers.ts`): the
//! server sends a record's values with each column's PostgreSQL type. Values go in and out as
//! JSON text.

use serde_json::value::RawValue;

use super::json_text::{as_string, is_json, quote, Entries};

/// `record` (a JSON object's members) with each value converted by its column's type, as JSON
/// text; columns missing from `columns` keep their value.
pub fn convert_record(columns: &[(String, String)], record: &Entries) -> String {
    record.write(
        |name, raw| match columns.iter().find(|(column, _)| column == name) {
            Some((_, column_type)) => convert_cell(column_type, raw),
            None => raw.get().to_owned(),
        },
    )
}

/// One value: booleans from `t`/`f`, numbers from their text (as JS `parseFloat` reads it), JSON
/// from its text, `timestamp` (without time zone) with the date and time joined by `T` as
/// PostgREST writes it, arrays (`_<type>`) element by element; anything else as it came.
pub fn convert_cell(column_type: &str, raw: &RawValue) -> String {
    let unchanged = || raw.get().to_owned();
    let Some(text) = as_string(raw) else {
        return unchanged();
    };
    if let Some(element_type) = column_type.strip_prefix('_') {
        return to_array(element_type, &text).unwrap_or_else(unchanged);
    }
    match column_type {
        "bool" => match text.as_str() {
            "t" => "true".to_owned(),
            "f" => "false".to_owned(),
            _ => unchanged(),
        },
        "float4" | "float8" | "int2" | "int4" | "int8" | "numeric" | "oid" => {
            number_prefix(&text).unwrap_or_else(unchanged)
        }
        "json" | "jsonb" if is_json(&text) => text.trim().to_owned(),
        "timestamp" => quote(&text.replacen(' ', "T", 1)),
        _ => unchanged(),
    }
}

/// JS `parseFloat`'s number, as JSON number text: the longest leading decimal number after
/// whitespace (`12abc` → `12`, `.5` → `0.5`), or `None` where it gives NaN. JSON has no
/// Infinity, so `Infinity` stays text; `1e999` is written as is and reads as Infinity in JS, as
/// `parseFloat` gives it.
fn number_prefix(text: &str) -> Option<String> {
    let text = text.trim_start();
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let digits = |from: &str| from.bytes().take_while(u8::is_ascii_digit).count();
    let whole = &unsigned[..digits(unsigned)];
    let mut rest = &unsigned[whole.len()..];
    let mut fraction = "";
    if let Some(after_point) = rest.strip_prefix('.') {
        fraction = &after_point[..digits(after_point)];
        if !whole.is_empty() || !fraction.is_empty() {
            rest = &after_point[fraction.len()..];
        }
    }
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let mut number = String::new();
    if negative {
        number.push('-');
    }
    let whole = whole.trim_start_matches('0');
    number.push_str(if whole.is_empty() { "0" } else { whole });
    if !fraction.is_empty() {
        number.push('.');
        number.push_str(fraction);
    }
    if let Some(exponent) = rest.strip_prefix(['e', 'E']) {
        let (sign, magnitude) = match exponent.as_bytes().first() {
            Some(b'-') => ("-", &exponent[1..]),
            Some(b'+') => ("", &exponent[1..]),
            _ => ("", exponent),
        };
        let magnitude = &magnitude[..digits(magnitude)];
        if !magnitude.is_empty() {
            number.push('e');
            number.push_str(sign);
            number.push_str(magnitude);
        }
    }
    Some(number)
}

/// A PostgreSQL array literal `{a,b}` read as JSON (`[a,b]`), each element converted.
fn to_array(element_type: &str, text: &str) -> Option<String> {
    let inner = text.strip_prefix('{')?.strip_suffix('}')?;
    let json = format!("[{inner}]");
    let items: Vec<&RawValue> = serde_json::from_str(&json).ok()?;
    let items: Vec<String> = items
        .into_iter()
        .map(|item| convert_cell(element_type, item))
        .collect();
    Some(format!("[{}]", items.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn convert(column_type: &str, value: Value) -> Value {
        let raw = serde_json::value::to_raw_value(&value).unwrap();
        serde_json::from_str(&convert_cell(column_type, &raw)).unwrap()
    }

    #[test]
    fn each_type_is_converted_as_realtime_js_does() {
        let cases = [
            ("bool", json!("t"), json!(true)),
            ("bool", json!("f"), json!(false)),
            ("bool", json!("x"), json!("x")),
            ("int8", json!("42"), json!(42)),
            ("int4", json!("-7"), json!(-7)),
            ("float8", json!("1.5"), json!(1.5)),
            ("float8", json!(".5"), json!(0.5)),
            ("float8", json!("+007.25e+2x"), json!(725.0)),
            ("float8", json!("3."), json!(3)),
            ("float8", json!("2e"), json!(2)),
            ("numeric", json!("12abc"), json!(12)),
            ("numeric", json!(" 2e3"), json!(2000.0)),
            ("numeric", json!("abc"), json!("abc")),
            ("numeric", json!("-"), json!("-")),
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
                convert(column_type, value.clone()),
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
        let record: Entries =
            serde_json::from_str(r#"{"id": "3", "ok": "t", "name": "7"}"#).unwrap();
        let converted: Value = serde_json::from_str(&convert_record(&columns, &record)).unwrap();
        assert_eq!(converted, json!({"id": 3, "ok": true, "name": "7"}));
    }
}
