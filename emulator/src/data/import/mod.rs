//! Entries from a file (CSV: the hosted dashboard's export or ours; JSON: ours or a saved
//! PostgREST read) added to a database with their ids and times.
//!
//! The whole file is read and checked before the database is touched: a malformed file is refused
//! with the line or array index it breaks at, and nothing is imported. The entries are then added
//! in id order, a batch per transaction, so a serving emulator's signs go on between batches; an
//! import cut short (a full disk) is finished by running it again, as stored ids are skipped. An
//! id already stored is skipped, never overwritten; where the stored entry differs from the
//! file's, the id is reported as a conflict. Entries keep their ids, so the identity (SQLite's
//! AUTOINCREMENT counter) moves past them and a later sign gets a larger id.

mod csv;
mod fields;
mod json;

use crate::data::error::Place;
use crate::data::DataError;
use crate::db::{Database, DbLocation};
use crate::rest::write_context::WriteContext;
use crate::state;
use crate::table::Row;
use crate::timestamp;
use rusqlite::{params, OptionalExtension};
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// An entry read from a file, and where in it.
#[derive(Debug)]
pub struct Parsed {
    pub place: Place,
    pub row: Row,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Imported {
    /// Entries added.
    pub added: u64,
    /// Entries whose id was already stored (the stored entry kept), conflicts included.
    pub skipped: u64,
    /// Ids whose stored entry differs from the file's, in id order.
    pub conflicts: Vec<i64>,
}

/// Reads `file` whole and returns its entries, or why it is not a file to import.
pub fn read(file: &Path) -> Result<Vec<Row>, DataError> {
    let bytes = std::fs::read(file).map_err(DataError::io(file))?;
    let malformed = |(place, reason): (Place, String)| DataError::Malformed {
        file: file.to_owned(),
        place,
        reason,
    };
    let parsed = if looks_like_json(&bytes) {
        json::parse(&bytes)
    } else {
        csv::parse(&bytes)
    }
    .map_err(malformed)?;
    let mut seen: HashMap<i64, Place> = HashMap::with_capacity(parsed.len());
    let mut rows = Vec::with_capacity(parsed.len());
    for Parsed { place, row } in parsed {
        if let Some(first) = seen.insert(row.id, place.clone()) {
            return Err(malformed((
                place,
                format!("id {} appears twice (also at {first})", row.id),
            )));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// A JSON file is an array: its first character (after a byte-order mark and blanks) is `[`. A
/// CSV file starts with its header.
fn looks_like_json(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    bytes
        .iter()
        .find(|byte| !byte.is_ascii_whitespace())
        .is_some_and(|byte| *byte == b'[')
}

/// Adds the entries of `file` to the database at `database`, creating it (with every service's
/// tables) when missing.
pub async fn import(database: &Path, file: &Path) -> Result<Imported, DataError> {
    let mut rows = read(file)?;
    rows.sort_by_key(|row| row.id);
    let db = Database::open(&DbLocation::File(database.to_owned()), &state::MIGRATIONS)
        .map_err(DataError::Open)?;
    let path = database.to_owned();
    db.call(move |connection| {
        let mut last_batch_took = Duration::ZERO;
        let mut imported = Imported::default();
        for (index, batch) in batches(&rows).into_iter().enumerate() {
            if index > 0 {
                yield_the_lock(last_batch_took);
            }
            let started = Instant::now();
            add(connection, batch, &mut imported).map_err(DataError::sqlite(&path))?;
            last_batch_took = started.elapsed();
        }
        Ok(imported)
    })
    .await
}

/// Entries per transaction, and the text one carries before the next begins: each holds the
/// database's write lock for moments, so a serving emulator's signs go on between them.
const ROWS_PER_BATCH: usize = 1_000;
const BYTES_PER_BATCH: usize = 4 << 20;

/// Leaves the write lock free between two batches for as long as the last one held it. A writer
/// waiting for the lock (a sign to a serving emulator) is not queued: SQLite's busy handler sleeps
/// and tries again, and an import that took the lock again at once could starve it until the
/// end. Free half the time, the lock is found free within a few of its tries.
fn yield_the_lock(last_batch_took: Duration) {
    std::thread::sleep(last_batch_took.clamp(Duration::from_millis(1), Duration::from_millis(200)));
}

/// `rows` cut into consecutive batches of at most `ROWS_PER_BATCH` entries and, unless one entry
/// alone is larger, `BYTES_PER_BATCH` bytes of text.
fn batches(rows: &[Row]) -> Vec<&[Row]> {
    let mut batches = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (index, row) in rows.iter().enumerate() {
        let size = row.name.len() + row.message.len();
        if index > start && (index - start == ROWS_PER_BATCH || bytes + size > BYTES_PER_BATCH) {
            batches.push(&rows[start..index]);
            (start, bytes) = (index, 0);
        }
        bytes += size;
    }
    if start < rows.len() {
        batches.push(&rows[start..]);
    }
    batches
}

/// One batch in one transaction under a write context: its first statement (the context's row)
/// takes the write lock before anything is read, so a sign waits for the batch (within SQLite's
/// busy timeout) instead of either failing halfway. Its time is the triggers' `now()`, as a
/// PostgreSQL transaction's start is: every added entry older than it is recorded in
/// `geocache_log_changes` as `added`, as a restored one is, so a returning device learns of
/// entries older than its catch-up window.
fn add(
    connection: &mut rusqlite::Connection,
    rows: &[Row],
    imported: &mut Imported,
) -> rusqlite::Result<()> {
    let context = WriteContext {
        now: timestamp::now_micros(),
        user_id: None,
    };
    context.run(connection, |transaction| {
        let mut stored = transaction
            .prepare("SELECT created_at, name, message FROM geocache_logs WHERE id = ?1")?;
        let mut insert = transaction.prepare(
            "INSERT INTO geocache_logs (id, created_at, name, message) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for row in rows {
            let existing: Option<(i64, String, String)> = stored
                .query_row([row.id], |found| {
                    Ok((found.get(0)?, found.get(1)?, found.get(2)?))
                })
                .optional()?;
            match existing {
                None => {
                    insert.execute(params![row.id, row.created_at, row.name, row.message])?;
                    imported.added += 1;
                }
                Some((created_at, name, message)) => {
                    imported.skipped += 1;
                    if (created_at, name.as_str(), message.as_str())
                        != (row.created_at, row.name.as_str(), row.message.as_str())
                    {
                        imported.conflicts.push(row.id);
                    }
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(path: &Path) -> Vec<(i64, i64, String, String)> {
        let connection = rusqlite::Connection::open(path).unwrap();
        let mut statement = connection
            .prepare("SELECT id, created_at, name, message FROM geocache_logs ORDER BY id")
            .unwrap();
        statement
            .query_map([], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[tokio::test]
    async fn entries_are_added_once_and_stored_ones_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("new/emulator.sqlite3");
        let file = dir.path().join("entries.csv");
        std::fs::write(
            &file,
            "id,created_at,name,message\r\n\
             7,2026-11-20 10:11:12.5+00,Ada,TFTC\r\n\
             3,2026-11-20 10:11:12+00,Grace,Found it",
        )
        .unwrap();
        let first = import(&database, &file).await.unwrap();
        assert_eq!((first.added, first.skipped), (2, 0));
        let stored = entries(&database);
        assert_eq!(
            stored,
            [
                (3, 1_795_169_472_000_000, "Grace".into(), "Found it".into()),
                (7, 1_795_169_472_500_000, "Ada".into(), "TFTC".into()),
            ]
        );

        std::fs::write(
            &file,
            "id,created_at,name,message\r\n\
             7,2026-11-20 10:11:12.5+00,Ada,TFTC\r\n\
             3,2026-11-20 10:11:12+00,Grace,Changed\r\n\
             9,2026-11-20 10:11:13+00,Linus,New",
        )
        .unwrap();
        let second = import(&database, &file).await.unwrap();
        assert_eq!(
            second,
            Imported {
                added: 1,
                skipped: 2,
                conflicts: vec![3],
            }
        );
        let stored = entries(&database);
        assert_eq!(
            stored[0].3, "Found it",
            "a stored entry is never overwritten"
        );
        assert_eq!(stored.len(), 3);
    }

    #[test]
    fn batches_are_consecutive_and_bounded_by_rows_and_bytes() {
        let row = |id: i64, length: usize| Row {
            id,
            created_at: 0,
            name: String::new(),
            message: "m".repeat(length),
        };
        let small: Vec<Row> = (1..=2_500).map(|id| row(id, 10)).collect();
        let sizes: Vec<usize> = batches(&small).iter().map(|batch| batch.len()).collect();
        assert_eq!(sizes, [1_000, 1_000, 500]);
        let large = [row(1, 3 << 20), row(2, 3 << 20), row(3, 5 << 20), row(4, 1)];
        let ids: Vec<Vec<i64>> = batches(&large)
            .iter()
            .map(|batch| batch.iter().map(|row| row.id).collect())
            .collect();
        assert_eq!(ids, [vec![1], vec![2], vec![3], vec![4]]);
        assert!(batches(&[]).is_empty());
    }

    #[tokio::test]
    async fn a_malformed_file_imports_nothing_and_creates_no_database() {
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("emulator.sqlite3");
        let file = dir.path().join("entries.json");
        std::fs::write(
            &file,
            r#"[{"id":1,"created_at":"2026-11-20T10:11:12Z","name":"Ada","message":"m"},
                {"id":1,"created_at":"2026-11-20T10:11:12Z","name":"Ada","message":"m"}]"#,
        )
        .unwrap();
        let error = import(&database, &file).await.unwrap_err();
        assert!(
            error
                .to_string()
                .contains("entry at index 1: id 1 appears twice (also at entry at index 0)"),
            "{error}"
        );
        assert!(!database.exists());
    }
}
