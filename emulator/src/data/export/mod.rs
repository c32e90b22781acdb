//! Every entry of the logbook, in id order, in one of three forms: a SQL script for a hosted
//! project, CSV as the hosted dashboard exports the table, or JSON as PostgREST returns rows.
//! All of it comes from one snapshot, so an export taken while visitors sign is consistent.

mod csv;
mod json;
mod sql;

use crate::data::{source, DataError};
use crate::table::Row;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A script `psql` applies to a hosted project, keeping ids and times.
    Sql,
    /// The hosted dashboard's CSV export of the table.
    Csv,
    /// A JSON array of rows as PostgREST returns them.
    Json,
}

/// One form's writer: told how many entries come, then given each in id order.
trait EntryWriter {
    fn begin(&mut self, out: &mut dyn Write, entries: u64) -> std::io::Result<()>;
    fn entry(&mut self, out: &mut dyn Write, row: &Row) -> std::io::Result<()>;
    fn end(&mut self, out: &mut dyn Write) -> std::io::Result<()>;
}

/// Writes every entry of the database at `database` to `out` (named `out_name` in errors) and
/// returns how many there were.
pub fn export(
    database: &Path,
    format: Format,
    out: &mut dyn Write,
    out_name: &str,
) -> Result<u64, DataError> {
    let mut connection = source::open(database)?;
    let snapshot = connection
        .transaction()
        .map_err(DataError::sqlite(database))?;
    let entries = source::count(&snapshot).map_err(DataError::sqlite(database))?;
    let mut writer: Box<dyn EntryWriter> = match format {
        Format::Sql => Box::new(sql::SqlWriter::default()),
        Format::Csv => Box::new(csv::CsvWriter),
        Format::Json => Box::new(json::JsonWriter::default()),
    };
    let write_error = |error| DataError::io(PathBuf::from(out_name))(error);
    writer.begin(out, entries).map_err(write_error)?;
    source::for_each_entry(&snapshot, database, |row| {
        if row.name.contains('\0') || row.message.contains('\0') {
            return Err(DataError::Unexportable {
                id: row.id,
                reason: "its text holds U+0000, which PostgreSQL cannot store".to_owned(),
            });
        }
        writer.entry(out, &row).map_err(write_error)
    })?;
    writer
        .end(out)
        .and_then(|()| out.flush())
        .map_err(write_error)?;
    Ok(entries)
}
