//! SQLite storage.
//!
//! One connection behind a mutex: SQLite serialises writers anyway, and the emulator's load is a
//! handful of requests. Every database call runs on tokio's blocking pool so the async runtime
//! never waits on disk.

use crate::private_file;
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A service's schema step: creates its tables where they are missing. Each service owns one, so
/// the database knows no service's tables.
pub type Migration = fn(&Connection) -> rusqlite::Result<()>;

/// Where the database lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbLocation {
    /// A private in-memory database (`--db :memory:`), gone when the process ends.
    Memory,
    File(PathBuf),
}

impl DbLocation {
    pub fn from_arg(arg: &str) -> DbLocation {
        if arg == ":memory:" {
            DbLocation::Memory
        } else {
            DbLocation::File(PathBuf::from(arg))
        }
    }
}

impl std::fmt::Display for DbLocation {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbLocation::Memory => formatter.write_str(":memory:"),
            DbLocation::File(path) => write!(formatter, "{}", path.display()),
        }
    }
}

#[derive(Debug)]
pub struct OpenError {
    location: DbLocation,
    cause: String,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "cannot open database {}: {}",
            self.location, self.cause
        )
    }
}

impl std::error::Error for OpenError {}

#[derive(Clone, Debug)]
pub struct Database {
    connection: Arc<Mutex<Connection>>,
}

impl Database {
    /// Opens the database (creating it if needed, parent directories included) and runs each of
    /// `migrations` on it, in order.
    pub fn open(location: &DbLocation, migrations: &[Migration]) -> Result<Database, OpenError> {
        let fail = |cause: String| OpenError {
            location: location.clone(),
            cause,
        };
        let connection = match location {
            DbLocation::Memory => Connection::open_in_memory(),
            DbLocation::File(path) => {
                // SQLite gives the -wal and -shm files the database file's mode.
                private_file::create_parent_dirs(path)
                    .and_then(|()| private_file::ensure_private(path))
                    .map_err(|error| fail(error.to_string()))?;
                Connection::open(path)
            }
        }
        .map_err(|error| fail(error.to_string()))?;
        if matches!(location, DbLocation::File(_)) {
            // WAL lets readers run beside the writer; FULL sync makes an acknowledged insert
            // durable even across a power loss, not only a process restart.
            connection
                .pragma_update(None, "journal_mode", "WAL")
                .and_then(|()| connection.pragma_update(None, "synchronous", "FULL"))
                .map_err(|error| fail(error.to_string()))?;
        }
        if let DbLocation::File(path) = location {
            // Files an older emulator left readable by others.
            for suffix in ["-wal", "-shm"] {
                let mut name = path.clone().into_os_string();
                name.push(suffix);
                private_file::restrict_if_present(Path::new(&name))
                    .map_err(|error| fail(error.to_string()))?;
            }
        }
        // SQLite enforces foreign keys (the auth tables cascade deletes) only when asked to.
        connection
            .pragma_update(None, "foreign_keys", "ON")
            .map_err(|error| fail(error.to_string()))?;
        for migrate in migrations {
            migrate(&connection).map_err(|error| fail(error.to_string()))?;
        }
        Ok(Database {
            connection: Arc::new(Mutex::new(connection)),
        })
    }

    /// Runs `work` with the connection on the blocking thread pool. Its error is the caller's
    /// own, so each service answers a failed query in its own words.
    pub async fn call<T, E, F>(&self, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<Unfinished> + Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, E> + Send + 'static,
    {
        let connection = Arc::clone(&self.connection);
        tokio::task::spawn_blocking(move || {
            // A panic while holding the lock cannot leave SQLite inconsistent (transactions roll
            // back on drop), so a poisoned lock is still safe to use.
            let mut guard = connection
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            work(&mut guard)
        })
        .await
        .map_err(|error| Unfinished(error.to_string()))?
    }
}

/// Database work that never returned: it panicked, or the runtime stopped before it ran.
#[derive(Debug)]
pub struct Unfinished(String);

impl std::fmt::Display for Unfinished {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for Unfinished {}
