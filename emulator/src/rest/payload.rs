//! Request bodies of POST and PATCH: JSON into the set of target columns and one set of values
//! per row, with PostgREST's errors for bad JSON (PGRST102), unknown columns (PGRST204) and
//! PostgreSQL's for values that do not fit their column.

use crate::rest::error::RestError;
use crate::rest::prefer::Missing;
use crate::table::{self, Column};
use serde_json::{Map, Value};

/// The parsed body: target columns (table order) and the JSON objects, one per row.
#[derive(Debug, Clone, PartialEq)]
pub struct Payload {
    pub columns: Vec<Column>,
    pub objects: Vec<Map<String, Value>>,
}

/// A column's value in a row to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field<T> {
    /// Not written: the column default applies (none for `name`/`message`, so NULL).
    Default,
    Null,
    Value(T),
}

/// One row to insert, or the new values of an update. `id` is an identity column `GENERATED
/// ALWAYS`, never written by a request (the handlers refuse it before values are read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Values {
    pub created_at: Field<i64>,
    pub name: Field<String>,
    pub message: Field<String>,
}

/// Parses a POST/PATCH body. With `columns=`, those are the target columns and other keys are
/// ignored; without it the keys of the (first) object are, and every object in an array must
/// have exactly those keys. A JSON scalar stands for no rows, as in PostgREST.
pub fn parse(body: &[u8], columns_param: Option<&[String]>) -> Result<Payload, RestError> {
    let json: Value = serde_json::from_slice(body)
        .map_err(|_| RestError::invalid_body("Empty or invalid json"))?;
    match columns_param {
        Some(names) => {
            let columns = resolve_columns(names.iter().map(String::as_str))?;
            let objects = match json {
                Value::Object(object) => vec![object],
                Value::Array(items) => items
                    .into_iter()
                    .map(|item| match item {
                        Value::Object(object) => Ok(object),
                        _ => Err(RestError::not_an_object("a scalar")),
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err(RestError::not_an_object("a scalar")),
            };
            Ok(Payload { columns, objects })
        }
        None => {
            let objects = match json {
                Value::Object(object) => vec![object],
                Value::Array(items) => uniform_objects(items)?,
                _ => Vec::new(),
            };
            let columns = match objects.first() {
                Some(first) => resolve_columns(first.keys().map(String::as_str))?,
                None => Vec::new(),
            };
            Ok(Payload { columns, objects })
        }
    }
}

fn uniform_objects(items: Vec<Value>) -> Result<Vec<Map<String, Value>>, RestError> {
    let mismatch = || RestError::invalid_body("All object keys must match");
    let mut objects = Vec::with_capacity(items.len());
    for item in items {
        let Value::Object(object) = item else {
            return Err(mismatch());
        };
        if let Some(first) = objects.first() {
            let same_keys = |a: &Map<String, Value>, b: &Map<String, Value>| {
                a.len() == b.len() && a.keys().all(|key| b.contains_key(key))
            };
            if !same_keys(first, &object) {
                return Err(mismatch());
            }
        }
        objects.push(object);
    }
    Ok(objects)
}

/// Names to columns in table order; the first unknown name (alphabetically, as PostgREST walks
/// its key set) is PGRST204.
fn resolve_columns<'a>(names: impl Iterator<Item = &'a str>) -> Result<Vec<Column>, RestError> {
    let mut names: Vec<&str> = names.collect();
    names.sort_unstable();
    names.dedup();
    let mut columns = Vec::new();
    for name in names {
        columns.push(Column::from_name(name).ok_or_else(|| RestError::column_not_found(name))?);
    }
    Ok(Column::ALL
        .into_iter()
        .filter(|column| columns.contains(column))
        .collect())
}

impl Payload {
    /// The values of each object, converted column by column in table order (PostgreSQL's
    /// `json_populate_recordset`), stopping at the first value that does not fit.
    pub fn values(&self, missing: Option<Missing>) -> Result<Vec<Values>, RestError> {
        self.objects
            .iter()
            .map(|object| {
                let field = |column: Column| -> Option<&Value> {
                    self.columns
                        .contains(&column)
                        .then(|| object.get(column.name()))
                        .flatten()
                };
                let absent = |column: Column| -> bool {
                    // A target column the object lacks is NULL, or its default with
                    // `Prefer: missing=default`.
                    !self.columns.contains(&column)
                        || (!object.contains_key(column.name())
                            && missing == Some(Missing::Default))
                };
                Ok(Values {
                    created_at: convert(
                        Column::CreatedAt,
                        field(Column::CreatedAt),
                        absent(Column::CreatedAt),
                        timestamptz,
                    )?,
                    name: convert(
                        Column::Name,
                        field(Column::Name),
                        absent(Column::Name),
                        text,
                    )?,
                    message: convert(
                        Column::Message,
                        field(Column::Message),
                        absent(Column::Message),
                        text,
                    )?,
                })
            })
            .collect()
    }
}

fn convert<T>(
    column: Column,
    value: Option<&Value>,
    absent: bool,
    read: fn(Column, &Value) -> Result<T, RestError>,
) -> Result<Field<T>, RestError> {
    match value {
        _ if absent => Ok(Field::Default),
        None | Some(Value::Null) => Ok(Field::Null),
        Some(value) => read(column, value).map(Field::Value),
    }
}

/// Text columns take JSON strings only (see `RestError::not_a_string`).
fn text(column: Column, value: &Value) -> Result<String, RestError> {
    match value {
        Value::String(text) if text.contains('\0') => Err(RestError::nul_in_text()),
        Value::String(text) => Ok(text.clone()),
        other => Err(RestError::not_a_string(column, json_type_name(other))),
    }
}

fn timestamptz(_: Column, value: &Value) -> Result<i64, RestError> {
    match value {
        Value::String(text) => Ok(table::parse_timestamptz(text)?),
        other => Err(RestError::invalid_datetime_format(&other.to_string())),
    }
}

fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn object_keys_become_columns_in_table_order() {
        let payload = parse(br#"{"message":"m","name":"n"}"#, None).unwrap();
        assert_eq!(payload.columns, [Column::Name, Column::Message]);
        assert_eq!(payload.objects.len(), 1);
    }

    #[test]
    fn arrays_need_uniform_keys() {
        let error = parse(br#"[{"name":"a","message":"b"},{"name":"c"}]"#, None).unwrap_err();
        assert_eq!(error.code(), "PGRST102");
        let error = parse(br#"[{"name":"a","message":"b"}, 5]"#, None).unwrap_err();
        assert_eq!(error.code(), "PGRST102");
    }

    #[test]
    fn invalid_json_and_unknown_columns() {
        assert_eq!(parse(b"{nope", None).unwrap_err().code(), "PGRST102");
        assert_eq!(parse(b"", None).unwrap_err().code(), "PGRST102");
        assert_eq!(
            parse(br#"{"name":"a","zeta":1,"alpha":2}"#, None)
                .unwrap_err()
                .code(),
            "PGRST204"
        );
        assert_eq!(
            parse(br#"{"name":"a"}"#, Some(&names(&["name", "nope"])))
                .unwrap_err()
                .code(),
            "PGRST204"
        );
    }

    #[test]
    fn scalars_and_empty_arrays_have_no_rows() {
        assert!(parse(b"[]", None).unwrap().objects.is_empty());
        assert!(parse(b"5", None).unwrap().objects.is_empty());
    }

    #[test]
    fn columns_param_ignores_other_keys_and_nulls_missing_ones() {
        let payload = parse(
            br#"[{"name":"a","message":"b","extra":1},{"name":"c"}]"#,
            Some(&names(&["name", "message"])),
        )
        .unwrap();
        let values = payload.values(None).unwrap();
        assert_eq!(values[0].message, Field::Value("b".to_owned()));
        assert_eq!(values[1].message, Field::Null);
        let with_defaults = payload.values(Some(Missing::Default)).unwrap();
        assert_eq!(with_defaults[1].message, Field::Default);
    }

    #[test]
    fn values_are_typed_strictly() {
        let payload = parse(br#"{"name":5,"message":"m"}"#, None).unwrap();
        assert_eq!(payload.values(None).unwrap_err().code(), "22P02");
        let payload = parse(
            br#"{"created_at":"2024-05-01T00:00:00Z","name":"n","message":"m"}"#,
            None,
        )
        .unwrap();
        let values = payload.values(None).unwrap();
        assert_eq!(values[0].created_at, Field::Value(1_714_521_600_000_000));
        let payload = parse(br#"{"created_at":5}"#, None).unwrap();
        assert_eq!(payload.values(None).unwrap_err().code(), "22007");
    }

    #[test]
    fn hostile_text_is_kept_byte_for_byte() {
        let hostile =
            "<img src=x onerror=alert(1)> \u{202e}שלום 🎉 '; drop table geocache_logs; --";
        let body = serde_json::json!({"name": hostile, "message": hostile}).to_string();
        let values = parse(body.as_bytes(), None).unwrap().values(None).unwrap();
        assert_eq!(values[0].name, Field::Value(hostile.to_owned()));
    }
}
