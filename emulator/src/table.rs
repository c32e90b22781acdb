//! The one table the emulator serves, `public.geocache_logs`, as the schema cache knows it:
//! column names, types and how literal text becomes a typed SQL value.

use crate::timestamp::{self, TimestampError};
use rusqlite::types::{ToSql, ToSqlOutput};

pub const DB_SCHEMA: &str = "public";
pub const TABLE: &str = "geocache_logs";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Id,
    CreatedAt,
    Name,
    Message,
}

impl Column {
    /// In table order, the order of `select=*`.
    pub const ALL: [Column; 4] = [Column::Id, Column::CreatedAt, Column::Name, Column::Message];

    pub fn name(self) -> &'static str {
        match self {
            Column::Id => "id",
            Column::CreatedAt => "created_at",
            Column::Name => "name",
            Column::Message => "message",
        }
    }

    pub fn from_name(name: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|column| column.name() == name)
    }

    /// The SQL identifier. Only these constants ever reach SQL text; values are bound parameters.
    pub fn sql(self) -> &'static str {
        match self {
            Column::Id => "\"id\"",
            Column::CreatedAt => "\"created_at\"",
            Column::Name => "\"name\"",
            Column::Message => "\"message\"",
        }
    }

    /// Reads a literal from a query string (filters) the way PostgreSQL's input function for the
    /// column type would, with PostgreSQL's errors.
    pub fn parse_literal(self, text: &str) -> Result<SqlValue, LiteralError> {
        match self {
            Column::Id => parse_bigint(text).map(SqlValue::Integer),
            Column::CreatedAt => parse_timestamptz(text).map(SqlValue::Integer),
            Column::Name | Column::Message if text.contains('\0') => Err(LiteralError::NulInText),
            Column::Name | Column::Message => Ok(SqlValue::Text(text.to_owned())),
        }
    }
}

/// PostgreSQL's `int8in`: optional surrounding spaces and sign, decimal digits only.
pub fn parse_bigint(text: &str) -> Result<i64, LiteralError> {
    let trimmed = text.trim_matches(' ');
    let digits = trimmed.strip_prefix(['+', '-']).unwrap_or(trimmed);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LiteralError::InvalidBigint(text.to_owned()));
    }
    trimmed
        .parse::<i64>()
        .map_err(|_| LiteralError::BigintOutOfRange(text.to_owned()))
}

/// PostgreSQL's `timestamptz_in`, to microseconds since the epoch.
pub fn parse_timestamptz(text: &str) -> Result<i64, LiteralError> {
    timestamp::parse(text).map_err(|error| match error {
        TimestampError::InvalidSyntax => LiteralError::InvalidTimestamp(text.to_owned()),
        TimestampError::FieldOutOfRange => LiteralError::TimestampOutOfRange(text.to_owned()),
    })
}

/// Why a literal is not valid input for its column type, as PostgreSQL's input functions decide.
/// The table layer's own error: `/rest/v1` turns it into PostgreSQL's error codes
/// (`impl From<LiteralError> for RestError`), so this module depends on nothing above it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiteralError {
    /// A NUL byte, which PostgreSQL's text type cannot hold.
    NulInText,
    /// Not the syntax of a bigint.
    InvalidBigint(String),
    /// A bigint's syntax, but outside its range.
    BigintOutOfRange(String),
    /// Not the syntax of a timestamptz.
    InvalidTimestamp(String),
    /// A timestamptz's syntax, but a field outside its range.
    TimestampOutOfRange(String),
}

impl LiteralError {
    /// The SQLSTATE PostgreSQL's input function raises for this failure.
    pub fn code(&self) -> &'static str {
        match self {
            LiteralError::NulInText => "22021",
            LiteralError::InvalidBigint(_) => "22P02",
            LiteralError::BigintOutOfRange(_) => "22003",
            LiteralError::InvalidTimestamp(_) => "22007",
            LiteralError::TimestampOutOfRange(_) => "22008",
        }
    }
}

/// A bound parameter: integers for `id` and `created_at` (microseconds), text for the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlValue {
    Integer(i64),
    Text(String),
}

impl ToSql for SqlValue {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        match self {
            SqlValue::Integer(value) => value.to_sql(),
            SqlValue::Text(value) => value.to_sql(),
        }
    }
}

/// One stored row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub id: i64,
    pub created_at: i64,
    pub name: String,
    pub message: String,
}

impl Row {
    /// The columns in the order `Row::from_sql` reads them.
    pub const SQL_COLUMNS: &'static str = "\"id\", \"created_at\", \"name\", \"message\"";

    pub fn from_sql(row: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
        Ok(Row {
            id: row.get(0)?,
            created_at: row.get(1)?,
            name: row.get(2)?,
            message: row.get(3)?,
        })
    }

    pub fn json(&self, column: Column) -> serde_json::Value {
        match column {
            Column::Id => self.id.into(),
            Column::CreatedAt => timestamp::to_json_text(self.created_at).into(),
            Column::Name => self.name.as_str().into(),
            Column::Message => self.message.as_str().into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_names_round_trip_and_nothing_else_resolves() {
        for column in Column::ALL {
            assert_eq!(Column::from_name(column.name()), Some(column));
        }
        for unknown in ["ID", "name ", "\"name\"", "name;--", ""] {
            assert_eq!(Column::from_name(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn bigint_literals_follow_int8in() {
        assert_eq!(parse_bigint(" 42 ").ok(), Some(42));
        assert_eq!(parse_bigint("-7").ok(), Some(-7));
        assert_eq!(parse_bigint("+7").ok(), Some(7));
        assert_eq!(parse_bigint("1.5").unwrap_err().code(), "22P02");
        assert_eq!(parse_bigint("1 or 1=1").unwrap_err().code(), "22P02");
        assert_eq!(parse_bigint("").unwrap_err().code(), "22P02");
        assert_eq!(
            parse_bigint("99999999999999999999").unwrap_err().code(),
            "22003"
        );
    }

    #[test]
    fn timestamp_literals_map_to_postgresql_errors() {
        assert!(parse_timestamptz("2024-05-01T00:00:00Z").is_ok());
        assert_eq!(parse_timestamptz("soon").unwrap_err().code(), "22007");
        assert_eq!(parse_timestamptz("2024-13-01").unwrap_err().code(), "22008");
    }
}
