//! The database a backup or an export reads: opened read-only, so neither can change it, and
//! never created (a mistyped path is an error, not a new empty logbook).

use crate::data::DataError;
use crate::table::Row;
use rusqlite::{Connection, OpenFlags, Transaction};
use std::path::Path;

/// Opens the emulator's database at `path` for reading.
pub fn open(path: &Path) -> Result<Connection, DataError> {
    if !path.is_file() {
        return Err(DataError::NoDatabase(path.to_owned()));
    }
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(DataError::sqlite(path))?;
    let has_table: bool = connection
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'geocache_logs')",
            [],
            |row| row.get(0),
        )
        .map_err(DataError::sqlite(path))?;
    if has_table {
        Ok(connection)
    } else {
        Err(DataError::NotAnEmulatorDatabase(path.to_owned()))
    }
}

/// How many entries a snapshot holds.
pub fn count(snapshot: &Transaction<'_>) -> rusqlite::Result<u64> {
    snapshot.query_row("SELECT count(*) FROM geocache_logs", [], |row| row.get(0))
}

/// Calls `each` with every entry of the snapshot of the database at `path`, in id order, one at a
/// time (a logbook of large messages is never held in memory whole).
pub fn for_each_entry(
    snapshot: &Transaction<'_>,
    path: &Path,
    mut each: impl FnMut(Row) -> Result<(), DataError>,
) -> Result<(), DataError> {
    let mut statement = snapshot
        .prepare(&format!(
            "SELECT {} FROM geocache_logs ORDER BY id",
            Row::SQL_COLUMNS
        ))
        .map_err(DataError::sqlite(path))?;
    let mut rows = statement.query([]).map_err(DataError::sqlite(path))?;
    while let Some(row) = rows.next().map_err(DataError::sqlite(path))? {
        each(Row::from_sql(row).map_err(DataError::sqlite(path))?)?;
    }
    Ok(())
}
