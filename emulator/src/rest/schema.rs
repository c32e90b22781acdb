//! The logbook's tables: `geocache_logs` and the receipts of signs sent with an
//! `Idempotency-Key`.

use rusqlite::Connection;

/// `id` is an always-increasing identity (AUTOINCREMENT never reuses ids, like a sequence);
/// `created_at` holds microseconds since the Unix epoch, UTC, so ordering is by instant.
/// `sign_receipts` holds each sign's `Idempotency-Key` (a lower-case UUID) and when it was
/// recorded, in microseconds ([`crate::rest::sign_once`]).
const LOGBOOK_TABLES_SQL: &str = "
CREATE TABLE IF NOT EXISTS geocache_logs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at INTEGER NOT NULL,
    name TEXT NOT NULL,
    message TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS geocache_logs_created_at ON geocache_logs (created_at);
CREATE TABLE IF NOT EXISTS sign_receipts (
    key TEXT PRIMARY KEY,
    received_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sign_receipts_received_at ON sign_receipts (received_at);
";

/// Creates the logbook's tables and indexes where they are missing.
pub fn migrate(connection: &Connection) -> rusqlite::Result<()> {
    connection.execute_batch(LOGBOOK_TABLES_SQL)
}
