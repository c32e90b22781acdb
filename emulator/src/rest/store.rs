//! The table operations, run on the blocking pool inside one SQLite transaction each. Writes run
//! under the request's [`WriteContext`], which the logbook's triggers read.

use crate::rest::error::RestError;
use crate::rest::payload::{Field, Values};
use crate::rest::plan::Plan;
use crate::rest::sign_once::{self, Claim, SignKey};
use crate::rest::sql::{self, Statement};
use crate::rest::write_context::WriteContext;
use crate::table::{Column, Record, Row, SqlValue};
use crate::timestamp;
use rusqlite::{params, params_from_iter, Connection, OptionalExtension};

/// Rows of the plan's relation for a read and, when asked, how many rows match the filters in
/// total.
pub fn read<R: Record>(
    connection: &mut Connection,
    plan: &Plan,
    with_count: bool,
) -> Result<(Vec<R>, Option<i64>), RestError> {
    let transaction = connection.transaction()?;
    let rows = query_records(&transaction, &sql::select(plan))?;
    let total = if with_count {
        let count = sql::count(plan.relation, &plan.conditions);
        Some(
            transaction.query_row(&count.sql, params_from_iter(&count.params), |row| {
                row.get(0)
            })?,
        )
    } else {
        None
    };
    transaction.commit()?;
    Ok((rows, total))
}

/// Inserts rows in order, all or nothing. Every row of one request gets the same `created_at`
/// default, the context's `now` (microseconds), as PostgreSQL's `now()` is the transaction's
/// start time. `admit` sees how many rows were stored before they commit (an AFTER STATEMENT
/// trigger); its error rolls them back. `key` is claimed before the first row is stored, in the
/// same transaction: a key an earlier request recorded stores no row at all.
pub fn insert(
    connection: &mut Connection,
    rows: &[Values],
    key: &SignKey,
    context: &WriteContext,
    admit: impl FnOnce(usize) -> Result<(), RestError>,
) -> Result<Vec<Row>, RestError> {
    context.run(connection, |transaction| {
        insert_rows(transaction, rows, key, context.now, admit)
    })
}

fn insert_rows(
    transaction: &Connection,
    rows: &[Values],
    key: &SignKey,
    now: i64,
    admit: impl FnOnce(usize) -> Result<(), RestError>,
) -> Result<Vec<Row>, RestError> {
    let mut inserted = Vec::with_capacity(rows.len());
    if !rows.is_empty() && sign_once::claim(transaction, key, now)? == Claim::Skip {
        // A resend: nothing stored, so nothing for the sign limit to count.
        admit(0)?;
        return Ok(inserted);
    }
    for values in rows {
        let id = Some(next_id(transaction)?);
        let created_at = match values.created_at {
            Field::Default => Some(now),
            Field::Null => None,
            Field::Value(micros) => Some(micros),
        };
        let name = text_or_null(&values.name);
        let message = text_or_null(&values.message);
        let failing_row = || failing_row(id, created_at, name, message);
        let (Some(id), Some(created_at), Some(name), Some(message)) =
            (id, created_at, name, message)
        else {
            let column = first_null_column(id, created_at, name, message);
            return Err(RestError::not_null_violation(column, failing_row()));
        };
        let row = transaction.query_row(
            &format!(
                "INSERT INTO geocache_logs (\"id\", \"created_at\", \"name\", \"message\") \
                 VALUES (?, ?, ?, ?) RETURNING {}",
                Row::SQL_COLUMNS
            ),
            params![id, created_at, name, message],
            Row::from_sql,
        )?;
        inserted.push(row);
    }
    admit(inserted.len())?;
    Ok(inserted)
}

/// Applies the written fields of `values` to the rows the plan targets. A NULL written into a
/// NOT NULL column fails only if some row is actually updated, as in PostgreSQL.
pub fn update(
    connection: &mut Connection,
    plan: &Plan,
    values: &Values,
) -> Result<Vec<Row>, RestError> {
    let transaction = connection.transaction()?;
    let targets = query_rows(&transaction, &sql::select(plan))?;
    let Some(first) = targets.first() else {
        return Ok(Vec::new());
    };
    let id = Some(first.id);
    let created_at = updated(&values.created_at, first.created_at);
    let name = updated(&values.name, first.name.clone());
    let message = updated(&values.message, first.message.clone());
    if id.is_none() || created_at.is_none() || name.is_none() || message.is_none() {
        let column = first_null_column(id, created_at, name.as_deref(), message.as_deref());
        let row = failing_row(id, created_at, name.as_deref(), message.as_deref());
        return Err(RestError::not_null_violation(column, row));
    }

    let mut assignments: Vec<(Column, SqlValue)> = Vec::new();
    if let Field::Value(micros) = values.created_at {
        assignments.push((Column::CreatedAt, SqlValue::Integer(micros)));
    }
    if let Field::Value(text) = &values.name {
        assignments.push((Column::Name, SqlValue::Text(text.clone())));
    }
    if let Field::Value(text) = &values.message {
        assignments.push((Column::Message, SqlValue::Text(text.clone())));
    }
    if assignments.is_empty() {
        return Ok(Vec::new());
    }
    let rows = query_rows(&transaction, &sql::update(&assignments, plan))?;
    transaction.commit()?;
    Ok(rows)
}

/// A column's value after an update: unchanged, NULL or the new value.
fn updated<T>(field: &Field<T>, current: T) -> Option<T>
where
    T: Clone,
{
    match field {
        Field::Default => Some(current),
        Field::Null => None,
        Field::Value(value) => Some(value.clone()),
    }
}

/// Deletes the rows the plan targets, when `reaches_rows` (row-level security, asked inside the
/// same transaction) lets the request reach them; otherwise deletes nothing. The triggers keep
/// each deleted row for the owner and record its removal.
pub fn delete(
    connection: &mut Connection,
    plan: &Plan,
    context: &WriteContext,
    reaches_rows: impl FnOnce(&Connection) -> rusqlite::Result<bool>,
) -> Result<Vec<Row>, RestError> {
    context.run(connection, |transaction| {
        if !reaches_rows(transaction)? {
            return Ok(Vec::new());
        }
        query_rows(transaction, &sql::delete(plan))
    })
}

/// Puts a removed entry back as it was, under the request's context, once `allowed` (asked
/// inside the transaction) says the request may; `None` when `entry_id` is no removed entry.
/// The insert fires the table's trigger like any other: a restored entry, older than now, is
/// recorded as added.
pub fn restore<E>(
    connection: &mut Connection,
    entry_id: Option<i64>,
    context: &WriteContext,
    allowed: impl FnOnce(&Connection) -> Result<(), E>,
) -> Result<Option<Row>, E>
where
    E: From<rusqlite::Error>,
{
    context.run(connection, |transaction| {
        allowed(transaction)?;
        let removed = transaction
            .query_row(
                &format!(
                    "DELETE FROM removed_geocache_logs WHERE id = ? RETURNING {}",
                    Row::SQL_COLUMNS
                ),
                [entry_id],
                Row::from_sql,
            )
            .optional()?;
        let Some(removed) = removed else {
            return Ok(None);
        };
        let restored = transaction.query_row(
            &format!(
                "INSERT INTO geocache_logs ({0}) VALUES (?, ?, ?, ?) RETURNING {0}",
                Row::SQL_COLUMNS
            ),
            params![
                removed.id,
                removed.created_at,
                removed.name,
                removed.message
            ],
            Row::from_sql,
        )?;
        Ok(Some(restored))
    })
}

fn query_rows(connection: &Connection, statement: &Statement) -> Result<Vec<Row>, RestError> {
    query_records(connection, statement)
}

fn query_records<R: Record>(
    connection: &Connection,
    statement: &Statement,
) -> Result<Vec<R>, RestError> {
    let mut prepared = connection.prepare(&statement.sql)?;
    let rows = prepared
        .query_map(params_from_iter(&statement.params), R::from_sql)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The id the identity would assign next (AUTOINCREMENT's counter + 1).
fn next_id(connection: &Connection) -> Result<i64, RestError> {
    let last: Option<i64> = connection
        .query_row(
            "SELECT seq FROM sqlite_sequence WHERE name = 'geocache_logs'",
            [],
            |row| row.get(0),
        )
        .optional()?;
    Ok(last.unwrap_or(0) + 1)
}

fn text_or_null(field: &Field<String>) -> Option<&str> {
    match field {
        Field::Value(text) => Some(text),
        Field::Default | Field::Null => None,
    }
}

fn first_null_column(
    id: Option<i64>,
    created_at: Option<i64>,
    name: Option<&str>,
    message: Option<&str>,
) -> Column {
    if id.is_none() {
        Column::Id
    } else if created_at.is_none() {
        Column::CreatedAt
    } else if name.is_none() {
        Column::Name
    } else {
        debug_assert!(message.is_none());
        Column::Message
    }
}

/// PostgreSQL's "Failing row contains (...)" values: NULL as `null`, long values clipped.
fn failing_row(
    id: Option<i64>,
    created_at: Option<i64>,
    name: Option<&str>,
    message: Option<&str>,
) -> String {
    [
        id.map(|id| id.to_string()),
        created_at.map(timestamp::to_pg_text),
        name.map(clip),
        message.map(clip),
    ]
    .into_iter()
    .map(|value| value.unwrap_or_else(|| "null".to_owned()))
    .collect::<Vec<_>>()
    .join(", ")
}

/// PostgreSQL clips each value in a row description to 64 bytes (on a character boundary)
/// and marks the cut with "...".
fn clip(text: &str) -> String {
    const MAX_BYTES: usize = 64;
    if text.len() <= MAX_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_characters_whole() {
        assert_eq!(clip("short"), "short");
        let long = "é".repeat(40); // 80 bytes
        let clipped = clip(&long);
        assert_eq!(clipped, format!("{}...", "é".repeat(32)));
    }

    #[test]
    fn failing_rows_show_nulls() {
        assert_eq!(
            failing_row(Some(3), Some(0), None, Some("hi")),
            "3, 1970-01-01 00:00:00+00, null, hi"
        );
    }
}
