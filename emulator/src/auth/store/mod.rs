//! The auth server's tables (GoTrue's `auth` schema, reduced) and their queries. Every function
//! takes a connection or a transaction and runs inside the caller's `Database::call`. Times are
//! microseconds since the Unix epoch, UTC; ids are UUID text.

pub mod factors;
pub mod sent_sms;
pub mod sessions;
pub mod users;

use rusqlite::Connection;
use serde_json::Value;
use std::fmt;

/// The auth store's own error: SQLite failed, or a JSON column the emulator wrote no longer
/// parses. Either is an internal failure to the auth routes, which convert it at their edge
/// (`impl From<StoreError> for AuthError`).
#[derive(Debug)]
pub enum StoreError {
    Sqlite(rusqlite::Error),
    StoredJson(serde_json::Error),
}

impl fmt::Display for StoreError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Sqlite(error) => write!(formatter, "sqlite: {error}"),
            StoreError::StoredJson(error) => write!(formatter, "stored JSON: {error}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        StoreError::Sqlite(error)
    }
}

/// Created at start-up beside `geocache_logs` (foreign keys are switched on per connection).
const AUTH_TABLES_SQL: &str = "
CREATE TABLE IF NOT EXISTS auth_users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    encrypted_password TEXT NOT NULL,
    email_confirmed_at INTEGER NOT NULL,
    last_sign_in_at INTEGER,
    raw_app_meta_data TEXT NOT NULL,
    raw_user_meta_data TEXT NOT NULL,
    identity_id TEXT NOT NULL,
    identity_data TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS auth_sessions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    aal TEXT NOT NULL,
    factor_id TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS auth_sessions_user_id ON auth_sessions (user_id);
CREATE TABLE IF NOT EXISTS auth_amr_claims (
    session_id TEXT NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
    method TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, method)
) STRICT;
CREATE TABLE IF NOT EXISTS auth_refresh_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    token TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
    parent TEXT,
    revoked INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS auth_refresh_tokens_session_id ON auth_refresh_tokens (session_id);
CREATE TABLE IF NOT EXISTS auth_factors (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    friendly_name TEXT NOT NULL,
    factor_type TEXT NOT NULL,
    status TEXT NOT NULL,
    secret TEXT,
    phone TEXT NOT NULL,
    last_challenged_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS auth_factors_user_id ON auth_factors (user_id);
CREATE TABLE IF NOT EXISTS auth_challenges (
    id TEXT PRIMARY KEY,
    factor_id TEXT NOT NULL REFERENCES auth_factors (id) ON DELETE CASCADE,
    otp_code TEXT,
    created_at INTEGER NOT NULL,
    verified_at INTEGER
) STRICT;
CREATE TABLE IF NOT EXISTS auth_totp_steps (
    factor_id TEXT PRIMARY KEY REFERENCES auth_factors (id) ON DELETE CASCADE,
    last_step INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS emulator_sms_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    phone TEXT NOT NULL,
    body TEXT NOT NULL,
    sent_at INTEGER NOT NULL
) STRICT;
";

/// Creates the auth server's tables and indexes where they are missing.
pub fn migrate(connection: &Connection) -> rusqlite::Result<()> {
    connection.execute_batch(AUTH_TABLES_SQL)
}

/// A JSON column's value; the emulator wrote it, so a parse failure is an internal error.
fn json_column(text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(StoreError::StoredJson)
}
