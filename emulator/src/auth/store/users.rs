//! `auth_users`: one row per user, with the single email identity it signed up with.

use super::json_column;
use crate::auth::store::StoreError;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct UserRecord {
    pub id: String,
    pub email: String,
    pub encrypted_password: String,
    pub email_confirmed_at: i64,
    pub last_sign_in_at: Option<i64>,
    pub app_metadata: Value,
    pub user_metadata: Value,
    pub identity_id: String,
    pub identity_data: Value,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLUMNS: &str = "id, email, encrypted_password, email_confirmed_at, last_sign_in_at, \
    raw_app_meta_data, raw_user_meta_data, identity_id, identity_data, created_at, updated_at";

/// The raw row; JSON columns are parsed afterwards, so their errors are the store's own.
struct RawUser {
    id: String,
    email: String,
    encrypted_password: String,
    email_confirmed_at: i64,
    last_sign_in_at: Option<i64>,
    app_metadata: String,
    user_metadata: String,
    identity_id: String,
    identity_data: String,
    created_at: i64,
    updated_at: i64,
}

fn raw(row: &Row<'_>) -> rusqlite::Result<RawUser> {
    Ok(RawUser {
        id: row.get(0)?,
        email: row.get(1)?,
        encrypted_password: row.get(2)?,
        email_confirmed_at: row.get(3)?,
        last_sign_in_at: row.get(4)?,
        app_metadata: row.get(5)?,
        user_metadata: row.get(6)?,
        identity_id: row.get(7)?,
        identity_data: row.get(8)?,
        created_at: row.get(9)?,
        updated_at: row.get(10)?,
    })
}

fn parse(raw: RawUser) -> Result<UserRecord, StoreError> {
    Ok(UserRecord {
        app_metadata: json_column(&raw.app_metadata)?,
        user_metadata: json_column(&raw.user_metadata)?,
        identity_data: json_column(&raw.identity_data)?,
        id: raw.id,
        email: raw.email,
        encrypted_password: raw.encrypted_password,
        email_confirmed_at: raw.email_confirmed_at,
        last_sign_in_at: raw.last_sign_in_at,
        identity_id: raw.identity_id,
        created_at: raw.created_at,
        updated_at: raw.updated_at,
    })
}

pub fn insert(connection: &Connection, user: &UserRecord) -> Result<(), StoreError> {
    connection.execute(
        &format!("INSERT INTO auth_users ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        params![
            user.id,
            user.email,
            user.encrypted_password,
            user.email_confirmed_at,
            user.last_sign_in_at,
            user.app_metadata.to_string(),
            user.user_metadata.to_string(),
            user.identity_id,
            user.identity_data.to_string(),
            user.created_at,
            user.updated_at,
        ],
    )?;
    Ok(())
}

/// `email` must already be lower-cased (as stored).
pub fn find_by_email(
    connection: &Connection,
    email: &str,
) -> Result<Option<UserRecord>, StoreError> {
    connection
        .query_row(
            &format!("SELECT {COLUMNS} FROM auth_users WHERE email = ?"),
            [email],
            raw,
        )
        .optional()?
        .map(parse)
        .transpose()
}

pub fn find_by_id(connection: &Connection, id: &str) -> Result<Option<UserRecord>, StoreError> {
    connection
        .query_row(
            &format!("SELECT {COLUMNS} FROM auth_users WHERE id = ?"),
            [id],
            raw,
        )
        .optional()?
        .map(parse)
        .transpose()
}

pub fn record_sign_in(connection: &Connection, id: &str, now: i64) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE auth_users SET last_sign_in_at = ?, updated_at = ? WHERE id = ?",
        params![now, now, id],
    )?;
    Ok(())
}
