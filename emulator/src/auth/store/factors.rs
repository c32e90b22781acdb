//! `auth_factors` (TOTP and phone second factors) and `auth_challenges` (one per challenge
//! request; verified ones stay so they cannot be replayed).

use crate::auth::store::StoreError;
use rusqlite::{params, Connection, OptionalExtension, Row};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactorType {
    Totp,
    Phone,
}

impl FactorType {
    pub fn as_str(self) -> &'static str {
        match self {
            FactorType::Totp => "totp",
            FactorType::Phone => "phone",
        }
    }

    fn parse(text: &str) -> Option<FactorType> {
        match text {
            "totp" => Some(FactorType::Totp),
            "phone" => Some(FactorType::Phone),
            _ => None,
        }
    }

    /// The AMR method a verification with this factor adds to the session.
    pub fn amr_method(self) -> &'static str {
        match self {
            FactorType::Totp => "totp",
            FactorType::Phone => "mfa/phone",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactorRecord {
    pub id: String,
    pub user_id: String,
    pub friendly_name: String,
    pub factor_type: FactorType,
    pub verified: bool,
    /// The TOTP secret in base32 (no padding); `None` for phone factors.
    pub secret: Option<String>,
    /// E.164 digits without `+` for phone factors, "" for TOTP.
    pub phone: String,
    pub last_challenged_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl FactorRecord {
    /// Whether an unverified factor has outlived `lifetime` (microseconds) since its enrolment or
    /// its latest challenge; verified factors never expire.
    pub fn expired(&self, lifetime: i64, now: i64) -> bool {
        let active = self
            .last_challenged_at
            .unwrap_or(self.created_at)
            .max(self.created_at);
        !self.verified && now > active + lifetime
    }

    pub fn status(&self) -> &'static str {
        if self.verified {
            "verified"
        } else {
            "unverified"
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeRecord {
    pub id: String,
    pub factor_id: String,
    /// The code sent by SMS (phone factors only).
    pub otp_code: Option<String>,
    pub created_at: i64,
    pub verified_at: Option<i64>,
}

const FACTOR_COLUMNS: &str = "id, user_id, friendly_name, factor_type, status, secret, phone, \
    last_challenged_at, created_at, updated_at";

fn factor(row: &Row<'_>) -> rusqlite::Result<FactorRecord> {
    let factor_type: String = row.get(3)?;
    let status: String = row.get(4)?;
    Ok(FactorRecord {
        id: row.get(0)?,
        user_id: row.get(1)?,
        friendly_name: row.get(2)?,
        factor_type: FactorType::parse(&factor_type).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                3,
                rusqlite::types::Type::Text,
                format!("unknown factor type {factor_type}").into(),
            )
        })?,
        verified: status == "verified",
        secret: row.get(5)?,
        phone: row.get(6)?,
        last_challenged_at: row.get(7)?,
        created_at: row.get(8)?,
        updated_at: row.get(9)?,
    })
}

/// The user's factors, oldest first.
pub fn list_of_user(
    connection: &Connection,
    user_id: &str,
) -> Result<Vec<FactorRecord>, StoreError> {
    let mut statement = connection.prepare(&format!(
        "SELECT {FACTOR_COLUMNS} FROM auth_factors WHERE user_id = ? ORDER BY created_at, rowid"
    ))?;
    let factors = statement
        .query_map([user_id], factor)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(factors)
}

/// The factor if it exists and belongs to the user.
pub fn find_of_user(
    connection: &Connection,
    id: &str,
    user_id: &str,
) -> Result<Option<FactorRecord>, StoreError> {
    Ok(connection
        .query_row(
            &format!("SELECT {FACTOR_COLUMNS} FROM auth_factors WHERE id = ? AND user_id = ?"),
            params![id, user_id],
            factor,
        )
        .optional()?)
}

pub fn insert(connection: &Connection, factor: &FactorRecord) -> Result<(), StoreError> {
    connection.execute(
        &format!(
            "INSERT INTO auth_factors ({FACTOR_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ),
        params![
            factor.id,
            factor.user_id,
            factor.friendly_name,
            factor.factor_type.as_str(),
            factor.status(),
            factor.secret,
            factor.phone,
            factor.last_challenged_at,
            factor.created_at,
            factor.updated_at,
        ],
    )?;
    Ok(())
}

pub fn delete(connection: &Connection, id: &str) -> Result<(), StoreError> {
    connection.execute("DELETE FROM auth_factors WHERE id = ?", [id])?;
    Ok(())
}

/// Unverified factors whose enrolment and latest challenge are both older than `active_before`
/// (GoTrue `DeleteExpiredFactors`, which also spares factors challenged since).
pub fn delete_expired(connection: &Connection, active_before: i64) -> Result<(), StoreError> {
    connection.execute(
        "DELETE FROM auth_factors WHERE status <> 'verified' \
         AND max(created_at, coalesce(last_challenged_at, created_at)) < ?",
        [active_before],
    )?;
    Ok(())
}

// --- TOTP time steps -------------------------------------------------------------------------

/// The latest TOTP time step accepted for the factor.
pub fn last_totp_step(connection: &Connection, factor_id: &str) -> Result<Option<i64>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT last_step FROM auth_totp_steps WHERE factor_id = ?",
            [factor_id],
            |row| row.get(0),
        )
        .optional()?)
}

pub fn record_totp_step(
    connection: &Connection,
    factor_id: &str,
    step: i64,
) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO auth_totp_steps (factor_id, last_step) VALUES (?, ?) \
         ON CONFLICT (factor_id) DO UPDATE SET last_step = excluded.last_step",
        params![factor_id, step],
    )?;
    Ok(())
}

pub fn delete_unverified_of_type(
    connection: &Connection,
    user_id: &str,
    factor_type: FactorType,
) -> Result<(), StoreError> {
    connection.execute(
        "DELETE FROM auth_factors WHERE user_id = ? AND status = 'unverified' AND factor_type = ?",
        params![user_id, factor_type.as_str()],
    )?;
    Ok(())
}

pub fn mark_verified(connection: &Connection, id: &str, now: i64) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE auth_factors SET status = 'verified', updated_at = ? WHERE id = ?",
        params![now, id],
    )?;
    Ok(())
}

// --- challenges ----------------------------------------------------------------------------

/// Stores a challenge and stamps the factor's `last_challenged_at`.
pub fn insert_challenge(
    connection: &Connection,
    challenge: &ChallengeRecord,
) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO auth_challenges (id, factor_id, otp_code, created_at, verified_at) \
         VALUES (?, ?, ?, ?, NULL)",
        params![
            challenge.id,
            challenge.factor_id,
            challenge.otp_code,
            challenge.created_at
        ],
    )?;
    connection.execute(
        "UPDATE auth_factors SET last_challenged_at = ?, updated_at = ? WHERE id = ?",
        params![
            challenge.created_at,
            challenge.created_at,
            challenge.factor_id
        ],
    )?;
    Ok(())
}

/// The challenge if it exists and belongs to the factor.
pub fn find_challenge(
    connection: &Connection,
    id: &str,
    factor_id: &str,
) -> Result<Option<ChallengeRecord>, StoreError> {
    Ok(connection
        .query_row(
            "SELECT id, factor_id, otp_code, created_at, verified_at FROM auth_challenges \
             WHERE id = ? AND factor_id = ?",
            params![id, factor_id],
            |row| {
                Ok(ChallengeRecord {
                    id: row.get(0)?,
                    factor_id: row.get(1)?,
                    otp_code: row.get(2)?,
                    created_at: row.get(3)?,
                    verified_at: row.get(4)?,
                })
            },
        )
        .optional()?)
}

pub fn delete_challenge(connection: &Connection, id: &str) -> Result<(), StoreError> {
    connection.execute("DELETE FROM auth_challenges WHERE id = ?", [id])?;
    Ok(())
}

pub fn mark_challenge_verified(
    connection: &Connection,
    id: &str,
    now: i64,
) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE auth_challenges SET verified_at = ? WHERE id = ?",
        params![now, id],
    )?;
    Ok(())
}
