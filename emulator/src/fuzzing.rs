//! Entry points for fuzzers (the cargo-fuzz targets in `fuzz/`) and for the property tests and
//! crash replays of the regular test suite. Each takes arbitrary bytes and panics only when an
//! invariant of the emulator breaks, never because the input is bad.

use crate::auth::jwt::verify_bearer;
use crate::gateway;
use crate::keys::{Keys, Role, DEFAULT_JWT_SECRET};
use crate::rest::plan;
use crate::rest::query;
use crate::rest::sql::{self, Statement};
use crate::table::{Column, SqlValue};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use rusqlite::{params_from_iter, Connection};
use serde_json::Value;
use sha2::{Sha256, Sha384, Sha512};
use std::sync::OnceLock;

/// The instant tokens are checked at (Unix seconds).
const NOW: i64 = 1_700_000_000;
/// PostgREST's allowed clock skew on `exp` (see `keys`).
const SKEW: i64 = 30;

/// The query-string parser and what follows it: a query string is parsed (PostgREST's grammar),
/// planned against `geocache_logs` and turned into SQL. Whenever that succeeds, every statement
/// (select, count, delete, update) must be built from constants and `?` parameters only, prepare
/// in SQLite with one parameter per value, reads must be read-only, and running them (writes
/// rolled back) must leave the schema and rows as they were.
pub fn query_string(data: &[u8]) {
    let raw = String::from_utf8_lossy(data);
    let Ok(params) = query::parse(Some(&raw)) else {
        return;
    };
    let Ok(plan) = plan::plan(&params) else {
        return;
    };
    let statements = [
        (sql::select(&plan), true),
        (sql::count(plan.relation, &plan.conditions), true),
        (sql::delete(&plan), false),
        (
            sql::update(&[(Column::Name, SqlValue::Text("x".into()))], &plan),
            false,
        ),
    ];
    SCRATCH.with(|connection| {
        let before = snapshot(connection);
        for (statement, read_only) in &statements {
            check_statement(connection, statement, *read_only, &raw);
        }
        assert_eq!(snapshot(connection), before, "{raw:?} changed the database");
    });
}

fn check_statement(connection: &Connection, statement: &Statement, read_only: bool, raw: &str) {
    let allowed = |c: char| c.is_ascii_alphanumeric() || " \"_,()?*=<>".contains(c);
    assert!(
        statement.sql.chars().all(allowed),
        "{raw:?} put request text into SQL: {}",
        statement.sql
    );
    assert_eq!(
        statement.sql.matches('?').count(),
        statement.params.len(),
        "{raw:?}: {}",
        statement.sql
    );
    let prepared = connection
        .prepare(&statement.sql)
        .unwrap_or_else(|error| panic!("{raw:?} planned invalid SQL {}: {error}", statement.sql));
    assert_eq!(prepared.parameter_count(), statement.params.len());
    assert_eq!(prepared.readonly(), read_only, "{}", statement.sql);
    drop(prepared);
    // Writes run inside a savepoint that is rolled back.
    connection
        .execute_batch("SAVEPOINT fuzz")
        .expect("the scratch database opens a savepoint");
    let mut prepared = connection
        .prepare(&statement.sql)
        .expect("the statement prepared a moment ago");
    let mut rows = prepared
        .query(params_from_iter(&statement.params))
        .expect("its parameters match, as asserted above");
    while let Ok(Some(_)) = rows.next() {}
    drop(rows);
    drop(prepared);
    connection
        .execute_batch("ROLLBACK TO fuzz; RELEASE fuzz")
        .expect("the savepoint opened above rolls back");
}

fn snapshot(connection: &Connection) -> (Vec<String>, Vec<(i64, String, String)>) {
    let mut schema = connection
        .prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
        .expect("sqlite_master is readable");
    let schema = schema
        .query_map([], |row| row.get(0))
        .expect("sqlite_master is readable")
        .collect::<Result<_, _>>()
        .expect("sqlite_master rows are text");
    let mut rows = connection
        .prepare("SELECT id, name, message FROM geocache_logs ORDER BY id")
        .expect("the scratch table is readable");
    let rows = rows
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .expect("the scratch table is readable")
        .collect::<Result<_, _>>()
        .expect("the scratch rows have these types");
    (schema, rows)
}

thread_local! {
    /// One scratch database per thread: the emulator's schema and a few rows.
    static SCRATCH: Connection = {
        let connection = Connection::open_in_memory().expect("SQLite opens an in-memory database");
        // Every service's tables: the logbook's triggers write rows that name accounts.
        for migrate in crate::state::MIGRATIONS {
            migrate(&connection).expect("the emulator's own tables create");
        }
        connection
            .execute_batch(
                "INSERT INTO geocache_logs (created_at, name, message) VALUES
                 (1714521600000000, 'ada', 'first'), (1714521601000000, 'bob', 'second'),
                 (1714521602000000, 'cy', 'third');",
            )
            .expect("the seed rows insert");
        connection
    };
}

/// The JWT and API-key checks (the gateway's, PostgREST's and GoTrue's) on arbitrary text, and
/// on tokens correctly signed (HS256) over arbitrary header and claims bytes (split at the first
/// NUL byte). A token is accepted only with a valid HMAC signature under an HMAC `alg`, an `exp`
/// within the skew, and, for an API key, the `anon` or `service_role` role; GoTrue accepts only
/// HS256 and only what PostgREST's check accepts.
pub fn jwt(data: &[u8]) {
    let keys = keys();
    if let Ok(text) = std::str::from_utf8(data) {
        check_token(keys, text);
    }
    let (header, claims) = match data.iter().position(|&byte| byte == 0) {
        Some(split) => (&data[..split], &data[split + 1..]),
        None => (&br#"{"alg":"HS256","typ":"JWT"}"#[..], data),
    };
    let message = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header),
        URL_SAFE_NO_PAD.encode(claims)
    );
    let signature = hmac_sign(Hash::Sha256, message.as_bytes());
    check_token(
        keys,
        &format!("{message}.{}", URL_SAFE_NO_PAD.encode(signature)),
    );
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| Keys::new(DEFAULT_JWT_SECRET))
}

fn check_token(keys: &Keys, token: &str) {
    let postgrest = keys.verify(token, NOW);
    if let Ok(claims) = &postgrest {
        let algorithm = signed_with(token);
        assert!(
            algorithm.is_some(),
            "accepted a token without a valid signature: {token:?}"
        );
        if let Some(exp) = claims.get("exp").and_then(Value::as_i64) {
            assert!(NOW <= exp + SKEW, "accepted an expired token: {token:?}");
        }
    }
    if let Ok(role) = gateway::key_role(keys, token, NOW) {
        // A new-format key is accepted only as one of the project's own, never as a JWT.
        let own_key = [keys.publishable_key(), keys.secret_key()].contains(&token.trim());
        assert!(
            own_key || keys.verify(token.trim(), NOW).is_ok(),
            "{token:?}"
        );
        assert!(matches!(role, Role::Anon | Role::ServiceRole), "{token:?}");
    }
    if verify_bearer(keys, token, NOW).is_ok() {
        assert!(
            postgrest.is_ok(),
            "GoTrue accepted what PostgREST refuses: {token:?}"
        );
        assert_eq!(signed_with(token), Some("HS256"), "{token:?}");
    }
}

/// The HMAC algorithm the token's header names, if its signature verifies under it.
fn signed_with(token: &str) -> Option<&'static str> {
    let mut parts = token.split('.');
    let (header, claims, signature) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let header: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).ok()?).ok()?;
    let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
    let message = format!("{}.{claims}", token.split('.').next()?);
    let (name, expected) = match header.get("alg")?.as_str()? {
        "HS256" => ("HS256", hmac_sign(Hash::Sha256, message.as_bytes())),
        "HS384" => ("HS384", hmac_sign(Hash::Sha384, message.as_bytes())),
        "HS512" => ("HS512", hmac_sign(Hash::Sha512, message.as_bytes())),
        _ => return None,
    };
    (signature == expected).then_some(name)
}

/// HMAC under the secret, computed with the `hmac` crate directly (the emulator signs and
/// verifies through jsonwebtoken), so the oracle does not share the code it checks.
fn hmac_sign(algorithm: Hash, message: &[u8]) -> Vec<u8> {
    fn sign<M: Mac + KeyInit>(message: &[u8]) -> Vec<u8> {
        let mut mac = <M as KeyInit>::new_from_slice(DEFAULT_JWT_SECRET.as_bytes())
            .expect("HMAC takes keys of any length");
        mac.update(message);
        mac.finalize().into_bytes().to_vec()
    }
    match algorithm {
        Hash::Sha256 => sign::<Hmac<Sha256>>(message),
        Hash::Sha384 => sign::<Hmac<Sha384>>(message),
        Hash::Sha512 => sign::<Hmac<Sha512>>(message),
    }
}

#[derive(Clone, Copy)]
enum Hash {
    Sha256,
    Sha384,
    Sha512,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_inputs_pass_the_invariants() {
        query_string(b"select=id,who:name&name=eq.ada&order=created_at.desc&limit=2&offset=1");
        query_string(b"id=not.in.(1,2)&message=is.null&name=neq.x%27%3B%20drop%20table");
        jwt(keys().anon_key().as_bytes());
        jwt(br#"{"role":"service_role","exp":1}"#);
    }

    #[test]
    fn the_signature_oracle_agrees_with_the_keys() {
        let keys = keys();
        assert_eq!(signed_with(keys.anon_key()), Some("HS256"));
        let mut tampered = keys.anon_key().to_owned();
        tampered.push('A');
        assert_eq!(signed_with(&tampered), None);
    }
}
