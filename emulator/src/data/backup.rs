//! A consistent copy of the whole database (entries, accounts, factors, sessions, storage rows),
//! taken while an emulator serves it.
//!
//! SQLite's `VACUUM INTO` reads one snapshot through a read-only connection of its own: under WAL
//! the serving emulator's writers go on beside it, and the copy holds exactly what was committed
//! when it began. The copy is written to a staging file beside the output (owner-only), checked,
//! fsynced and only then given its name, so the output is never half-written. The object bytes of
//! Storage live in files beside the database and are not part of the copy.

use crate::data::{source, DataError};
use crate::private_file;
use rusqlite::Connection;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

/// A backup that was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    pub path: PathBuf,
    /// The file's size in bytes.
    pub bytes: u64,
    /// The logbook entries it holds.
    pub entries: u64,
}

/// Copies the database at `database` to `out`. An existing `out` is refused unless `replace`.
pub fn write(database: &Path, out: &Path, replace: bool) -> Result<Backup, DataError> {
    if !replace && fs::symlink_metadata(out).is_ok() {
        return Err(DataError::OutputExists(out.to_owned()));
    }
    let source = source::open(database)?;
    let staging = staging_path(out);
    let written = copy(&source, database, &staging, out, replace);
    drop(source);
    if written.is_err() {
        let _ = fs::remove_file(&staging);
    }
    let entries = written?;
    let bytes = fs::metadata(out).map_err(DataError::io(out))?.len();
    Ok(Backup {
        path: out.to_owned(),
        bytes,
        entries,
    })
}

fn copy(
    source: &Connection,
    database: &Path,
    staging: &Path,
    out: &Path,
    replace: bool,
) -> Result<u64, DataError> {
    // Made empty and owner-only first: VACUUM INTO fills an empty file and keeps its mode.
    private_file::create_parent_dirs(out)
        .and_then(|()| {
            let _ = fs::remove_file(staging);
            private_file::ensure_private(staging)
        })
        .map_err(DataError::io(staging))?;
    let target = staging.to_str().ok_or_else(|| DataError::Io {
        path: staging.to_owned(),
        error: std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the backup's path must be valid UTF-8",
        ),
    })?;
    source
        .execute("VACUUM INTO ?1", [target])
        .map_err(DataError::sqlite(database))?;
    let entries = check(staging)?;
    File::open(staging)
        .and_then(|file| file.sync_all())
        .map_err(DataError::io(staging))?;
    publish(staging, out, replace)?;
    sync_parent(out).map_err(DataError::io(out))?;
    Ok(entries)
}

/// Makes the copy one self-contained file (no `-wal` to carry along), checks its integrity and
/// counts its entries.
fn check(staging: &Path) -> Result<u64, DataError> {
    let fail = DataError::sqlite(staging);
    let connection = Connection::open(staging).map_err(DataError::sqlite(staging))?;
    let checked = (|| {
        connection.pragma_update(None, "journal_mode", "DELETE")?;
        let verdict: String = connection.query_row("PRAGMA quick_check", [], |row| row.get(0))?;
        let entries: u64 =
            connection.query_row("SELECT count(*) FROM geocache_logs", [], |row| row.get(0))?;
        Ok((verdict, entries))
    })();
    let (verdict, entries) = checked.map_err(fail)?;
    connection
        .close()
        .map_err(|(_, error)| DataError::sqlite(staging)(error))?;
    if verdict != "ok" {
        return Err(DataError::Io {
            path: staging.to_owned(),
            error: std::io::Error::other(format!("the copy failed its check: {verdict}")),
        });
    }
    Ok(entries)
}

/// Gives the staging file its final name: a rename replaces an existing output, a hard link
/// never does (a file made at `out` since the first check is refused, not replaced).
fn publish(staging: &Path, out: &Path, replace: bool) -> Result<(), DataError> {
    if replace {
        return fs::rename(staging, out).map_err(DataError::io(out));
    }
    let linked = fs::hard_link(staging, out);
    let _ = fs::remove_file(staging);
    match linked {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(DataError::OutputExists(out.to_owned()))
        }
        Err(error) => Err(DataError::io(out)(error)),
    }
}

/// The staging file: beside `out` (a rename never crosses file systems), hidden, and named after
/// this process so two backups to one name never share it.
fn staging_path(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    out.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

/// A rename is durable once the directory that holds the name is.
fn sync_parent(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let parent = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        File::open(parent)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn database(dir: &Path, entries: usize) -> PathBuf {
        let path = dir.join("emulator.sqlite3");
        let connection = Connection::open(&path).unwrap();
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .unwrap();
        crate::rest::migrate(&connection).unwrap();
        for index in 0..entries {
            connection
                .execute(
                    "INSERT INTO geocache_logs (created_at, name, message) VALUES (?1, 'Ada', 'TFTC')",
                    [index as i64],
                )
                .unwrap();
        }
        path
    }

    #[test]
    fn the_copy_is_owner_only_complete_and_alone() {
        let dir = tempfile::tempdir().unwrap();
        let source = database(dir.path(), 3);
        let out = dir.path().join("copies/first.sqlite3");
        let backup = write(&source, &out, false).unwrap();
        assert_eq!(backup.entries, 3);
        assert_eq!(backup.bytes, fs::metadata(&out).unwrap().len());
        let mode = fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // Nothing but the copy: no staging file, no -wal or -shm beside it.
        let names: Vec<String> = fs::read_dir(out.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["first.sqlite3"]);
    }

    #[test]
    fn an_existing_output_is_kept_unless_forced() {
        let dir = tempfile::tempdir().unwrap();
        let source = database(dir.path(), 2);
        let out = dir.path().join("taken");
        fs::write(&out, b"precious").unwrap();
        assert!(matches!(
            write(&source, &out, false),
            Err(DataError::OutputExists(_))
        ));
        assert_eq!(fs::read(&out).unwrap(), b"precious");
        assert_eq!(write(&source, &out, true).unwrap().entries, 2);
    }

    #[test]
    fn a_missing_or_foreign_source_is_refused_and_never_created() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.sqlite3");
        let out = dir.path().join("out");
        assert!(matches!(
            write(&missing, &out, false),
            Err(DataError::NoDatabase(_))
        ));
        assert!(!missing.exists());
        let foreign = dir.path().join("foreign.sqlite3");
        Connection::open(&foreign)
            .unwrap()
            .execute_batch("CREATE TABLE notes (text TEXT)")
            .unwrap();
        assert!(matches!(
            write(&foreign, &out, false),
            Err(DataError::NotAnEmulatorDatabase(_))
        ));
        assert!(!out.exists());
    }
}
