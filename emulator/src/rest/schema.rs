//! The logbook's tables: `geocache_logs`, the receipts of signs sent with an `Idempotency-Key`,
//! and the owner's side as the migration `..._geocache_logs_owners.sql` builds it: the owners,
//! the removed entries, the changes anon may read, and the triggers that write the last two.
//!
//! The triggers are SQLite's own, so every writer of the database file records removals and
//! restores alike: the REST API, the `owner` and data commands, even `sqlite3` by hand. What
//! PostgreSQL's triggers read from the request (`now()`, the transaction's time, and
//! `auth.uid()`) they read from `write_context`, one row a writer puts there inside its
//! transaction and takes out before committing ([`crate::rest::write_context`]); a writer that
//! sets none gets the wall clock and no account.

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

/// The owner's side. Times are microseconds since the Unix epoch, like `created_at`; account ids
/// are `auth_users` ids (UUID text), so deleting an account ends its ownership and keeps what it
/// removed, as the migration's foreign keys do. The triggers are created only where missing, so
/// a database another emulator is serving never lacks them, not even for a moment.
const OWNER_TABLES_SQL: &str = "
CREATE TABLE IF NOT EXISTS logbook_owners (
    user_id TEXT PRIMARY KEY REFERENCES auth_users (id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS removed_geocache_logs (
    id INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    name TEXT NOT NULL,
    message TEXT NOT NULL,
    removed_at INTEGER NOT NULL,
    removed_by TEXT REFERENCES auth_users (id) ON DELETE SET NULL
) STRICT;
CREATE INDEX IF NOT EXISTS removed_geocache_logs_removed_at ON removed_geocache_logs (removed_at);
CREATE TABLE IF NOT EXISTS geocache_log_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_id INTEGER NOT NULL,
    change TEXT NOT NULL CHECK (change IN ('removed', 'added')),
    changed_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS geocache_log_changes_changed_at ON geocache_log_changes (changed_at);
CREATE TABLE IF NOT EXISTS write_context (
    one_row INTEGER PRIMARY KEY CHECK (one_row = 1),
    now INTEGER NOT NULL,
    user_id TEXT
) STRICT;
CREATE TRIGGER IF NOT EXISTS geocache_logs_removed AFTER DELETE ON geocache_logs
BEGIN
    INSERT INTO removed_geocache_logs (id, created_at, name, message, removed_at, removed_by)
    VALUES (old.id, old.created_at, old.name, old.message, @now,
            (SELECT auth_users.id FROM auth_users
              WHERE auth_users.id = (SELECT user_id FROM write_context)))
    ON CONFLICT (id) DO UPDATE SET
        created_at = excluded.created_at, name = excluded.name, message = excluded.message,
        removed_at = excluded.removed_at, removed_by = excluded.removed_by;
    INSERT INTO geocache_log_changes (entry_id, change, changed_at) VALUES (old.id, 'removed', @now);
    DELETE FROM removed_geocache_logs WHERE id IN (
        SELECT id FROM removed_geocache_logs
         WHERE removed_at < @now - @kept_removed ORDER BY removed_at LIMIT 100);
    DELETE FROM geocache_log_changes WHERE seq IN (
        SELECT seq FROM geocache_log_changes
         WHERE changed_at < @now - @kept_changes ORDER BY changed_at LIMIT 100);
END;
CREATE TRIGGER IF NOT EXISTS geocache_logs_added AFTER INSERT ON geocache_logs
WHEN new.created_at < @now
BEGIN
    INSERT INTO geocache_log_changes (entry_id, change, changed_at) VALUES (new.id, 'added', @now);
    DELETE FROM geocache_log_changes WHERE seq IN (
        SELECT seq FROM geocache_log_changes
         WHERE changed_at < @now - @kept_changes ORDER BY changed_at LIMIT 100);
END;
";

/// The triggers' `now()`: the writer's, else the wall clock (julianday, which every SQLite has).
const NOW_SQL: &str = "coalesce((SELECT now FROM write_context), \
    CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER))";

const MICROS_PER_DAY: i64 = 86_400_000_000;
/// Removed entries are kept 90 days after their removal, then forgotten a batch at a time.
pub const KEPT_REMOVED_DAYS: i64 = 90;
/// Changes are kept 30 days: a device that has not caught up for longer reads the logbook anew.
pub const KEPT_CHANGES_DAYS: i64 = 30;

/// Creates the logbook's tables, indexes and triggers where they are missing.
pub fn migrate(connection: &Connection) -> rusqlite::Result<()> {
    connection.execute_batch(LOGBOOK_TABLES_SQL)?;
    connection.execute_batch(&owner_tables_sql())
}

fn owner_tables_sql() -> String {
    OWNER_TABLES_SQL
        .replace("@now", NOW_SQL)
        .replace(
            "@kept_removed",
            &(KEPT_REMOVED_DAYS * MICROS_PER_DAY).to_string(),
        )
        .replace(
            "@kept_changes",
            &(KEPT_CHANGES_DAYS * MICROS_PER_DAY).to_string(),
        )
}
