//! What can go wrong with a backup, an export or an import, in words an owner can act on.

use crate::db::{OpenError, Unfinished};
use std::path::PathBuf;

#[derive(Debug)]
pub enum DataError {
    /// The source database does not exist (the commands never create one to read from).
    NoDatabase(PathBuf),
    /// A file without the logbook's table: not an emulator's database.
    NotAnEmulatorDatabase(PathBuf),
    /// The output exists and `--force` was not given.
    OutputExists(PathBuf),
    /// `--db :memory:`: there is no file to copy, read or fill.
    NotAFile,
    /// A file that could not be read or written.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// SQLite refused (`path` is the database it was working on).
    Sqlite {
        path: PathBuf,
        error: rusqlite::Error,
    },
    Open(OpenError),
    /// An import file that is not a well-formed export; nothing was imported.
    Malformed {
        file: PathBuf,
        place: Place,
        reason: String,
    },
    /// A stored text PostgreSQL could not hold (U+0000).
    Unexportable {
        id: i64,
        reason: String,
    },
    Unfinished(Unfinished),
}

/// Where in an import file a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A CSV line, counted from 1 (a record spanning lines is named by its first).
    Line(u64),
    /// An entry of a JSON array, counted from 0.
    Index(usize),
    /// Where a JSON text stops being JSON.
    Position { line: usize, column: usize },
    /// The file as a whole.
    File,
}

impl std::fmt::Display for Place {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Line(line) => write!(formatter, "line {line}"),
            Place::Index(index) => write!(formatter, "entry at index {index}"),
            Place::Position { line, column } => write!(formatter, "line {line}, column {column}"),
            Place::File => formatter.write_str("the file"),
        }
    }
}

impl DataError {
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> DataError {
        let path = path.into();
        move |error| DataError::Io { path, error }
    }

    pub fn sqlite(path: impl Into<PathBuf>) -> impl FnOnce(rusqlite::Error) -> DataError {
        let path = path.into();
        move |error| DataError::Sqlite { path, error }
    }
}

impl std::fmt::Display for DataError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DataError::NoDatabase(path) => {
                write!(formatter, "there is no database at {}", path.display())
            }
            DataError::NotAnEmulatorDatabase(path) => write!(
                formatter,
                "{} is not an emulator's database (it has no geocache_logs table)",
                path.display()
            ),
            DataError::OutputExists(path) => write!(
                formatter,
                "{} exists; give --force to replace it",
                path.display()
            ),
            DataError::NotAFile => {
                formatter.write_str("an in-memory database (:memory:) has no file to work on")
            }
            DataError::Io { path, error } => write!(formatter, "{}: {error}", path.display()),
            DataError::Sqlite { path, error } => write!(formatter, "{}: {error}", path.display()),
            DataError::Open(error) => error.fmt(formatter),
            DataError::Malformed {
                file,
                place,
                reason,
            } => write!(
                formatter,
                "{}, {place}: {reason}; nothing was imported",
                file.display()
            ),
            DataError::Unexportable { id, reason } => write!(formatter, "entry {id}: {reason}"),
            DataError::Unfinished(error) => error.fmt(formatter),
        }
    }
}

impl std::error::Error for DataError {}

impl From<Unfinished> for DataError {
    fn from(error: Unfinished) -> DataError {
        DataError::Unfinished(error)
    }
}
