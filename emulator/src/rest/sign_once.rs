//! Each sign stored once per `Idempotency-Key`, the same rule as the hosted migration
//! (`supabase/migrations/*_geocache_logs_sign_receipts.sql`). A client gives each sign a random
//! UUID in the header and sends the same one with every resend: the first request with a key
//! records it in `sign_receipts` and stores its rows, in the same transaction; a later request
//! with the key stores nothing and is answered as a success (201, `[]` for
//! `return=representation`). Without the header rows are stored as sent. A header that is not a
//! UUID is refused (PT400), never ignored: ignoring it would store every resend again.
//!
//! As in PostgreSQL, the key is looked at only when a row is about to be stored (the migration's
//! BEFORE INSERT trigger): a request with no rows records nothing and refuses nothing. A refused
//! or failed request rolls its receipt back with its rows. Receipts older than 30 days are
//! deleted, a bounded number each time a new one is recorded.

use crate::rest::error::{PostgrestError, RestError};
use axum::http::{HeaderMap, StatusCode};
use rusqlite::{params, Connection};
use std::borrow::Cow;

/// The request header carrying a sign's key (header names are case-insensitive).
pub const KEY_HEADER: &str = "idempotency-key";
/// How long a receipt is kept: far longer than any client resends a sign.
pub const RECEIPT_DAYS: i64 = 30;
const RECEIPT_MICROS: i64 = RECEIPT_DAYS * 24 * 60 * 60 * 1_000_000;
/// Old receipts deleted per new one, so no request pays for a long backlog.
const CLEAN_UP_BATCH: i64 = 100;

/// What a request's `Idempotency-Key` header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignKey {
    /// No header: every row is stored, no receipt is kept.
    Absent,
    /// A canonical UUID, lower-cased (PostgreSQL's `uuid` type reads either case as one value).
    Key(String),
    /// Anything else: refused once a row is about to be stored.
    Malformed,
}

impl SignKey {
    pub fn from_headers(headers: &HeaderMap) -> SignKey {
        match headers.get(KEY_HEADER) {
            None => SignKey::Absent,
            Some(value) => match value.to_str() {
                Ok(text) if is_canonical_uuid(text) => SignKey::Key(text.to_ascii_lowercase()),
                _ => SignKey::Malformed,
            },
        }
    }
}

/// 8-4-4-4-12 hexadecimal digits, either case, nothing around them (the migration's pattern).
pub fn is_canonical_uuid(text: &str) -> bool {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let mut groups = text.split('-');
    GROUPS.iter().all(|&len| {
        groups
            .next()
            .is_some_and(|group| group.len() == len && group.bytes().all(|b| b.is_ascii_hexdigit()))
    }) && groups.next().is_none()
}

/// Whether the request's rows are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    Store,
    /// The key was recorded by an earlier request: its rows are skipped.
    Skip,
}

/// Claims `key` for the request running in `connection`'s open transaction, at `now`
/// (microseconds), before its first row is stored. The caller's rollback forgets the claim.
pub fn claim(connection: &Connection, key: &SignKey, now: i64) -> Result<Claim, RestError> {
    let key = match key {
        SignKey::Absent => return Ok(Claim::Store),
        SignKey::Malformed => return Err(malformed_key()),
        SignKey::Key(key) => key,
    };
    let recorded = connection.execute(
        "INSERT INTO sign_receipts (key, received_at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
        params![key, now],
    )?;
    if recorded == 0 {
        return Ok(Claim::Skip);
    }
    connection.execute(
        "DELETE FROM sign_receipts WHERE key IN \
         (SELECT key FROM sign_receipts WHERE received_at < ? LIMIT ?)",
        params![now - RECEIPT_MICROS, CLEAN_UP_BATCH],
    )?;
    Ok(Claim::Store)
}

/// The migration's PT400, which PostgREST answers as HTTP 400.
pub fn malformed_key() -> RestError {
    PostgrestError {
        status: StatusCode::BAD_REQUEST,
        code: Cow::Borrowed("PT400"),
        message: "The Idempotency-Key header is not a UUID.".to_owned(),
        details: Some(
            "A sign's key is a UUID written as 8-4-4-4-12 hexadecimal digits, such as \
             123e4567-e89b-42d3-a456-426614174000."
                .to_owned(),
        ),
        hint: Some(
            "Send a new random UUID with each sign and the same one when sending it again, or \
             leave the header out."
                .to_owned(),
        ),
        www_authenticate: None,
        allow: None,
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn key(value: &[u8]) -> SignKey {
        let mut headers = HeaderMap::new();
        headers.insert(KEY_HEADER, HeaderValue::from_bytes(value).unwrap());
        SignKey::from_headers(&headers)
    }

    #[test]
    fn only_canonical_uuids_are_keys() {
        assert_eq!(SignKey::from_headers(&HeaderMap::new()), SignKey::Absent);
        assert_eq!(
            key(b"123E4567-e89b-42d3-A456-426614174000"),
            SignKey::Key("123e4567-e89b-42d3-a456-426614174000".into())
        );
        for malformed in [
            &b""[..],
            b"123e4567e89b42d3a456426614174000",
            b"{123e4567-e89b-42d3-a456-426614174000}",
            b" 123e4567-e89b-42d3-a456-426614174000",
            b"123e4567-e89b-42d3-a456-42661417400g",
            b"123e4567-e89b-42d3-a456-4266141740000",
            b"123e4567-e89b-42d3-a456-426614174000-",
            b"123e4567-e89b-42d3a-456-426614174000",
            b"123e4567-e89b-42d3-a456-42661417\xc3\xa900",
        ] {
            assert_eq!(key(malformed), SignKey::Malformed, "{malformed:?}");
        }
    }

    fn receipts() -> Connection {
        let connection = Connection::open_in_memory().unwrap();
        crate::rest::schema::migrate(&connection).unwrap();
        connection
    }

    fn count(connection: &Connection) -> i64 {
        connection
            .query_row("SELECT count(*) FROM sign_receipts", [], |row| row.get(0))
            .unwrap()
    }

    #[test]
    fn a_key_is_claimed_once_and_absent_keys_never() {
        let connection = receipts();
        let sign = SignKey::Key("123e4567-e89b-42d3-a456-426614174000".into());
        assert_eq!(
            claim(&connection, &SignKey::Absent, 0).unwrap(),
            Claim::Store
        );
        assert_eq!(count(&connection), 0);
        assert_eq!(claim(&connection, &sign, 0).unwrap(), Claim::Store);
        assert_eq!(claim(&connection, &sign, 1).unwrap(), Claim::Skip);
        assert_eq!(count(&connection), 1);
        let error = claim(&connection, &SignKey::Malformed, 2).unwrap_err();
        assert_eq!(error.code(), "PT400");
    }

    #[test]
    fn receipts_older_than_thirty_days_are_forgotten_as_new_ones_arrive() {
        let connection = receipts();
        let old = SignKey::Key("00000000-0000-4000-8000-000000000001".into());
        let new = SignKey::Key("00000000-0000-4000-8000-000000000002".into());
        assert_eq!(claim(&connection, &old, 0).unwrap(), Claim::Store);
        // Exactly 30 days later the old receipt still counts.
        assert_eq!(
            claim(&connection, &new, RECEIPT_MICROS).unwrap(),
            Claim::Store
        );
        assert_eq!(
            claim(&connection, &old, RECEIPT_MICROS).unwrap(),
            Claim::Skip
        );
        let newer = SignKey::Key("00000000-0000-4000-8000-000000000003".into());
        assert_eq!(
            claim(&connection, &newer, RECEIPT_MICROS + 1).unwrap(),
            Claim::Store
        );
        assert_eq!(count(&connection), 2);
        assert_eq!(
            claim(&connection, &old, RECEIPT_MICROS + 2).unwrap(),
            Claim::Store
        );
    }
}
