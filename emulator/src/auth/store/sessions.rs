//! `auth_sessions`, their AMR claims (how the user authenticated, one row per method) and their
//! refresh tokens (rotated on every use: a used token is revoked and gets a child).

use crate::auth::store::StoreError;
use rusqlite::{params, Connection, OptionalExtension};

pub const AAL1: &str = "aal1";
pub const AAL2: &str = "aal2";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub id: String,
    pub user_id: String,
    pub aal: String,
    pub factor_id: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl SessionRecord {
    pub fn is_aal2(&self) -> bool {
        self.aal == AAL2
    }
}

/// One authentication method of a session and when it last happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmrClaim {
    pub method: String,
    pub updated_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshTokenRecord {
    pub id: i64,
    pub token: String,
    pub session_id: String,
    pub revoked: bool,
}

pub fn create(
    connection: &Connection,
    id: &str,
    user_id: &str,
    now: i64,
) -> Result<SessionRecord, StoreError> {
    connection.execute(
        "INSERT INTO auth_sessions (id, user_id, aal, factor_id, created_at, updated_at) \
         VALUES (?, ?, ?, NULL, ?, ?)",
        params![id, user_id, AAL1, now, now],
    )?;
    Ok(SessionRecord {
        id: id.to_owned(),
        user_id: user_id.to_owned(),
        aal: AAL1.to_owned(),
        factor_id: None,
        created_at: now,
        updated_at: now,
    })
}

pub fn find(connection: &Connection, id: &str) -> Result<Option<SessionRecord>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT id, user_id, aal, factor_id, created_at, updated_at FROM auth_sessions \
             WHERE id = ?",
            [id],
            |row| {
                Ok(SessionRecord {
                    id: row.get(0)?,
                    user_id: row.get(1)?,
                    aal: row.get(2)?,
                    factor_id: row.get(3)?,
                    created_at: row.get(4)?,
                    updated_at: row.get(5)?,
                })
            },
        )
        .optional()?)
}

pub fn set_aal(
    connection: &Connection,
    id: &str,
    aal: &str,
    factor_id: Option<&str>,
    now: i64,
) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE auth_sessions SET aal = ?, factor_id = ?, updated_at = ? WHERE id = ?",
        params![aal, factor_id, now, id],
    )?;
    Ok(())
}

pub fn touch(connection: &Connection, id: &str, now: i64) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE auth_sessions SET updated_at = ? WHERE id = ?",
        params![now, id],
    )?;
    Ok(())
}

/// Records (or renews) an authentication method on the session (GoTrue `AddClaimToSession`).
pub fn add_amr_claim(
    connection: &Connection,
    session_id: &str,
    method: &str,
    now: i64,
) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO auth_amr_claims (session_id, method, updated_at) VALUES (?, ?, ?) \
         ON CONFLICT (session_id, method) DO UPDATE SET updated_at = excluded.updated_at",
        params![session_id, method, now],
    )?;
    Ok(())
}

/// The session's claims, most recent first.
pub fn amr_claims(connection: &Connection, session_id: &str) -> Result<Vec<AmrClaim>, StoreError> {
    let mut statement = connection.prepare(
        "SELECT method, updated_at FROM auth_amr_claims WHERE session_id = ? \
         ORDER BY updated_at DESC, rowid DESC",
    )?;
    let claims = statement
        .query_map([session_id], |row| {
            Ok(AmrClaim {
                method: row.get(0)?,
                updated_at: row.get(1)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(claims)
}

/// Unenrolling a factor takes its method out of the sessions it raised to AAL2
/// (GoTrue `DowngradeSessionsToAAL1`).
pub fn downgrade_for_factor(
    connection: &Connection,
    factor_id: &str,
    method: &str,
    now: i64,
) -> Result<(), StoreError> {
    connection.execute(
        "DELETE FROM auth_amr_claims WHERE method = ? AND session_id IN \
         (SELECT id FROM auth_sessions WHERE factor_id = ?)",
        params![method, factor_id],
    )?;
    connection.execute(
        "UPDATE auth_sessions SET aal = ?, factor_id = NULL, updated_at = ? WHERE factor_id = ?",
        params![AAL1, now, factor_id],
    )?;
    Ok(())
}

pub fn delete(connection: &Connection, id: &str) -> Result<(), StoreError> {
    connection.execute("DELETE FROM auth_sessions WHERE id = ?", [id])?;
    Ok(())
}

pub fn delete_all_of_user(connection: &Connection, user_id: &str) -> Result<(), StoreError> {
    connection.execute("DELETE FROM auth_sessions WHERE user_id = ?", [user_id])?;
    Ok(())
}

pub fn delete_others_of_user(
    connection: &Connection,
    user_id: &str,
    keep: &str,
) -> Result<(), StoreError> {
    connection.execute(
        "DELETE FROM auth_sessions WHERE user_id = ? AND id <> ?",
        params![user_id, keep],
    )?;
    Ok(())
}

/// After an MFA verification, the user's sessions below AAL2 end
/// (GoTrue `InvalidateSessionsWithAALLessThan`).
pub fn delete_below_aal2_of_user(connection: &Connection, user_id: &str) -> Result<(), StoreError> {
    connection.execute(
        "DELETE FROM auth_sessions WHERE user_id = ? AND aal <> ?",
        params![user_id, AAL2],
    )?;
    Ok(())
}

// --- refresh tokens ------------------------------------------------------------------------

pub fn insert_refresh_token(
    connection: &Connection,
    token: &str,
    session_id: &str,
    parent: Option<&str>,
    now: i64,
) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO auth_refresh_tokens (token, session_id, parent, revoked, created_at, \
         updated_at) VALUES (?, ?, ?, 0, ?, ?)",
        params![token, session_id, parent, now, now],
    )?;
    Ok(())
}

pub fn find_refresh_token(
    connection: &Connection,
    token: &str,
) -> Result<Option<RefreshTokenRecord>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT id, token, session_id, revoked FROM auth_refresh_tokens WHERE token = ?",
            [token],
            |row| {
                Ok(RefreshTokenRecord {
                    id: row.get(0)?,
                    token: row.get(1)?,
                    session_id: row.get(2)?,
                    revoked: row.get(3)?,
                })
            },
        )
        .optional()?)
}

/// The session's newest unrevoked token, if any.
pub fn active_refresh_token(
    connection: &Connection,
    session_id: &str,
) -> Result<Option<String>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT token FROM auth_refresh_tokens WHERE session_id = ? AND revoked = 0 \
             ORDER BY id DESC LIMIT 1",
            [session_id],
            |row| row.get(0),
        )
        .optional()?)
}

/// Revokes every token of the session (used tokens, and the whole family when one is reused).
pub fn revoke_refresh_tokens(
    connection: &Connection,
    session_id: &str,
    now: i64,
) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE auth_refresh_tokens SET revoked = 1, updated_at = ? \
         WHERE session_id = ? AND revoked = 0",
        params![now, session_id],
    )?;
    Ok(())
}
