//! What the emulator serves through `/rest/v1`, as PostgREST's schema cache knows it: the table
//! `public.geocache_logs`, the table `public.geocache_log_changes` and the rows of the function
//! `public.removed_geocache_logs()` ([`Relation`]); their column names, types and how literal text
//! becomes a typed SQL value; and one stored row of each ([`Record`]).

use crate::timestamp::{self, TimestampError};
use rusqlite::types::{ToSql, ToSqlOutput};

pub const DB_SCHEMA: &str = "public";
pub const TABLE: &str = "geocache_logs";
/// What anon may learn about removals and restores: `(seq, entry_id, change, changed_at)`.
pub const CHANGES_TABLE: &str = "geocache_log_changes";
/// The owner's function listing removed entries, whose rows PostgREST reads like a table's.
pub const REMOVED_FUNCTION: &str = "removed_geocache_logs";

/// A column of one of the relations. The logbook's own four come first: [`Column::ALL`] and
/// [`Column::from_name`] are `geocache_logs`' (request bodies and Realtime filters know no other).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Id,
    CreatedAt,
    Name,
    Message,
    /// `removed_geocache_logs()`: when the entry was removed.
    RemovedAt,
    /// `geocache_log_changes`: the change's place in the order they happened (identity).
    Seq,
    EntryId,
    /// `'removed'` or `'added'`.
    Change,
    ChangedAt,
}

/// The type of a column's values, which decides how a literal is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Bigint,
    Timestamptz,
    Text,
}

impl Column {
    /// `geocache_logs` in table order, the order of `select=*`.
    pub const ALL: [Column; 4] = [Column::Id, Column::CreatedAt, Column::Name, Column::Message];

    pub fn name(self) -> &'static str {
        match self {
            Column::Id => "id",
            Column::CreatedAt => "created_at",
            Column::Name => "name",
            Column::Message => "message",
            Column::RemovedAt => "removed_at",
            Column::Seq => "seq",
            Column::EntryId => "entry_id",
            Column::Change => "change",
            Column::ChangedAt => "changed_at",
        }
    }

    /// A column of `geocache_logs`.
    pub fn from_name(name: &str) -> Option<Column> {
        Relation::Logs.column(name)
    }

    /// The SQL identifier. Only these constants ever reach SQL text; values are bound parameters.
    pub fn sql(self) -> &'static str {
        match self {
            Column::Id => "\"id\"",
            Column::CreatedAt => "\"created_at\"",
            Column::Name => "\"name\"",
            Column::Message => "\"message\"",
            Column::RemovedAt => "\"removed_at\"",
            Column::Seq => "\"seq\"",
            Column::EntryId => "\"entry_id\"",
            Column::Change => "\"change\"",
            Column::ChangedAt => "\"changed_at\"",
        }
    }

    pub fn column_type(self) -> ColumnType {
        match self {
            Column::Id | Column::Seq | Column::EntryId => ColumnType::Bigint,
            Column::CreatedAt | Column::RemovedAt | Column::ChangedAt => ColumnType::Timestamptz,
            Column::Name | Column::Message | Column::Change => ColumnType::Text,
        }
    }

    /// Reads a literal from a query string (filters) the way PostgreSQL's input function for the
    /// column type would, with PostgreSQL's errors.
    pub fn parse_literal(self, text: &str) -> Result<SqlValue, LiteralError> {
        match self.column_type() {
            ColumnType::Bigint => parse_bigint(text).map(SqlValue::Integer),
            ColumnType::Timestamptz => parse_timestamptz(text).map(SqlValue::Integer),
            ColumnType::Text if text.contains('\0') => Err(LiteralError::NulInText),
            ColumnType::Text => Ok(SqlValue::Text(text.to_owned())),
        }
    }
}

/// A relation `/rest/v1` reads: a table, or the rows a function returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// `public.geocache_logs`.
    Logs,
    /// `public.geocache_log_changes`.
    Changes,
    /// The rows of `public.removed_geocache_logs()`, read from the emulator's table of removed
    /// entries (less who removed each: the function does not return it).
    Removed,
}

impl Relation {
    /// Its name in PostgREST's errors.
    pub fn name(self) -> &'static str {
        match self {
            Relation::Logs => TABLE,
            Relation::Changes => CHANGES_TABLE,
            Relation::Removed => REMOVED_FUNCTION,
        }
    }

    /// The SQLite table holding its rows (a constant: never from a request).
    pub fn sql_table(self) -> &'static str {
        match self {
            Relation::Logs => "geocache_logs",
            Relation::Changes => "geocache_log_changes",
            Relation::Removed => "removed_geocache_logs",
        }
    }

    /// Its columns in order: `select=*`, and the order its [`Record`] reads them.
    pub fn columns(self) -> &'static [Column] {
        match self {
            Relation::Logs => &Column::ALL,
            Relation::Changes => &[
                Column::Seq,
                Column::EntryId,
                Column::Change,
                Column::ChangedAt,
            ],
            Relation::Removed => &[
                Column::Id,
                Column::CreatedAt,
                Column::Name,
                Column::Message,
                Column::RemovedAt,
            ],
        }
    }

    pub fn column(self, name: &str) -> Option<Column> {
        self.columns()
            .iter()
            .copied()
            .find(|column| column.name() == name)
    }

    /// The columns as a SQL select list, in [`Relation::columns`] order.
    pub fn sql_columns(self) -> String {
        self.columns()
            .iter()
            .map(|column| column.sql())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The unique key that orders rows the filters and `order` leave tied.
    pub fn key(self) -> Column {
        match self {
            Relation::Logs | Relation::Removed => Column::Id,
            Relation::Changes => Column::Seq,
        }
    }

    /// The time column whose direction the key's tiebreak follows ("newest first" puts the
    /// later row first among equal times).
    pub fn time_column(self) -> Column {
        match self {
            Relation::Logs => Column::CreatedAt,
            Relation::Changes => Column::ChangedAt,
            Relation::Removed => Column::RemovedAt,
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

/// A row of one relation, as SQLite returns it and as JSON renders it.
pub trait Record: Sized {
    /// Reads the relation's [`Relation::columns`], in order.
    fn from_sql(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self>;

    /// A column's JSON value; `null` for a column the relation does not have (plans resolve
    /// names against the relation, so none is ever asked for).
    fn json(&self, column: Column) -> serde_json::Value;
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
            Column::RemovedAt
            | Column::Seq
            | Column::EntryId
            | Column::Change
            | Column::ChangedAt => serde_json::Value::Null,
        }
    }
}

impl Record for Row {
    fn from_sql(row: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
        Row::from_sql(row)
    }

    fn json(&self, column: Column) -> serde_json::Value {
        Row::json(self, column)
    }
}

/// A row of `removed_geocache_logs()`: the entry as it was, and when it was removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovedEntry {
    pub entry: Row,
    pub removed_at: i64,
}

impl Record for RemovedEntry {
    fn from_sql(row: &rusqlite::Row<'_>) -> rusqlite::Result<RemovedEntry> {
        Ok(RemovedEntry {
            entry: Row::from_sql(row)?,
            removed_at: row.get(4)?,
        })
    }

    fn json(&self, column: Column) -> serde_json::Value {
        match column {
            Column::RemovedAt => timestamp::to_json_text(self.removed_at).into(),
            other => self.entry.json(other),
        }
    }
}

/// A row of `geocache_log_changes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogChange {
    pub seq: i64,
    pub entry_id: i64,
    pub change: String,
    pub changed_at: i64,
}

impl Record for LogChange {
    fn from_sql(row: &rusqlite::Row<'_>) -> rusqlite::Result<LogChange> {
        Ok(LogChange {
            seq: row.get(0)?,
            entry_id: row.get(1)?,
            change: row.get(2)?,
            changed_at: row.get(3)?,
        })
    }

    fn json(&self, column: Column) -> serde_json::Value {
        match column {
            Column::Seq => self.seq.into(),
            Column::EntryId => self.entry_id.into(),
            Column::Change => self.change.as_str().into(),
            Column::ChangedAt => timestamp::to_json_text(self.changed_at).into(),
            Column::Id | Column::CreatedAt | Column::Name | Column::Message | Column::RemovedAt => {
                serde_json::Value::Null
            }
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
