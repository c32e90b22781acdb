//! Abuse of the auth server and of PostgREST's JWT check: wrong, expired and replayed MFA codes,
//! challenge and verify over the rate limit, refresh-token reuse, and access tokens with
//! `alg: none`, a wrong signature, an expired `exp` or another user's factor id. Each is refused
//! with GoTrue's or PostgREST's status and code, as the hosted services answer, and leaves the
//! database as it was. The only changes are the ones GoTrue itself makes: an expired challenge
//! is deleted, and reuse of a refresh token revokes its session's tokens.

use super::support::{totp_code, AuthApp, Session};
use crate::support::{DbResult, TABLE_URL};
use axum::http::{Method, StatusCode};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use geocache_emulator::db::DbLocation;
use geocache_emulator::state::AppState;
use rusqlite::types::Value as SqlValue;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const TABLES: [&str; 8] = [
    "auth_users",
    "auth_sessions",
    "auth_amr_claims",
    "auth_refresh_tokens",
    "auth_factors",
    "auth_challenges",
    "emulator_sms_outbox",
    "geocache_logs",
];

/// Every row of every table.
#[derive(Debug, Clone, PartialEq)]
struct Dump(BTreeMap<&'static str, Vec<Vec<SqlValue>>>);

async fn dump(auth: &AuthApp) -> Dump {
    let tables = auth
        .app
        .state
        .db
        .call(|connection| -> DbResult<_> {
            let mut tables = BTreeMap::new();
            for table in TABLES {
                let mut statement =
                    connection.prepare(&format!("SELECT * FROM {table} ORDER BY rowid"))?;
                let width = statement.column_count();
                let rows = statement
                    .query_map([], |row| (0..width).map(|index| row.get(index)).collect())?
                    .collect::<Result<Vec<Vec<SqlValue>>, _>>()?;
                tables.insert(table, rows);
            }
            Ok(tables)
        })
        .await
        .unwrap();
    Dump(tables)
}

impl Dump {
    fn rows(&self, table: &str) -> &[Vec<SqlValue>] {
        &self.0[table]
    }

    /// Without the rows of `table` whose first column is `id`.
    fn without(mut self, table: &'static str, id: &str) -> Dump {
        let rows = self.0.get_mut(table).unwrap();
        rows.retain(|row| row[0] != SqlValue::Text(id.to_owned()));
        self
    }

    /// Refresh tokens as (token, session, revoked), the parts reuse detection may change.
    fn refresh_tokens(&self) -> Vec<(SqlValue, SqlValue, SqlValue)> {
        self.rows("auth_refresh_tokens")
            .iter()
            .map(|row| (row[1].clone(), row[2].clone(), row[4].clone()))
            .collect()
    }
}

fn text(value: &str) -> SqlValue {
    SqlValue::Text(value.to_owned())
}

const BAD_JWT: &str = "invalid JWT: unable to parse or verify signature, ";

/// Access tokens carrying `session`'s claims that no server may accept, with GoTrue's reason
/// and PostgREST's code and message for each.
fn forgeries(
    auth: &AuthApp,
    session: &Session,
) -> Vec<(String, &'static str, &'static str, &'static str)> {
    let claims = session.claims();
    let unsigned = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let mut as_service = claims.clone();
    as_service["role"] = json!("service_role");
    let unsigned_service = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#),
        URL_SAFE_NO_PAD.encode(as_service.to_string())
    );
    let foreign_secret =
        AppState::open(&DbLocation::Memory, "an-attacker-secret-of-32-characters!!")
            .unwrap()
            .keys
            .sign(&claims);
    let mut expired = claims.clone();
    expired["exp"] = json!(auth.now() - 3600);
    expired["iat"] = json!(auth.now() - 7200);
    let expired = auth.app.state.keys.sign(&expired);
    vec![
        (
            unsigned,
            "token signature is invalid: signing method none is invalid",
            "PGRST301",
            "Wrong or unsupported encoding algorithm",
        ),
        (
            unsigned_service,
            "token signature is invalid: signing method none is invalid",
            "PGRST301",
            "Wrong or unsupported encoding algorithm",
        ),
        (
            foreign_secret,
            "token signature is invalid: signature is invalid",
            "PGRST301",
            "JWT cryptographic operation failed",
        ),
        (
            expired,
            "token has invalid claims: token is expired",
            "PGRST303",
            "JWT expired",
        ),
    ]
}

fn wrong_code(right: &str) -> String {
    format!("{:06}", (right.parse::<u32>().unwrap() + 1) % 1_000_000)
}

#[tokio::test]
async fn wrong_codes_are_refused_and_change_nothing() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, secret) = auth.enroll_totp(&session, "app").await;
    let challenge = auth.challenge_id(&session, &factor_id).await;
    let right = totp_code(&secret, auth.now());
    let before = dump(&auth).await;
    let stale = totp_code(&secret, auth.now() - 90);
    for code in [
        wrong_code(&right).as_str(),
        stale.as_str(),
        "12345",
        "1234567",
        "abcdef",
        " 123456",
    ] {
        auth.verify(&session, &factor_id, &challenge, code)
            .await
            .assert_auth_error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "mfa_verification_failed",
                "Invalid TOTP code entered",
            );
        assert_eq!(dump(&auth).await, before, "{code:?}");
    }

    let phone = auth.enroll_phone(&session, "mobile", "+15551234567").await;
    let challenge = auth.challenge_id(&session, &phone).await;
    let sent = auth.last_sms_code().await;
    let before = dump(&auth).await;
    auth.verify(&session, &phone, &challenge, &wrong_code(&sent))
        .await
        .assert_auth_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_verification_failed",
            "Invalid MFA Phone code entered",
        );
    assert_eq!(dump(&auth).await, before);
    assert_eq!(session.claims()["aal"], "aal1");
}

#[tokio::test]
async fn an_expired_challenge_is_refused_and_only_deleted() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    // A verified factor: an unverified one would expire with its challenge.
    let (session, factor_id, secret) = auth.verified_totp(&session).await;
    let challenge = auth.challenge_id(&session, &factor_id).await;
    auth.clock.advance_seconds(301);
    let before = dump(&auth).await;
    // Even the right code for the moment does not verify an expired challenge.
    auth.verify(&session, &factor_id, &challenge, &totp_code(&secret, auth.now()))
        .await
        .assert_auth_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "mfa_challenge_expired",
            &format!(
                "MFA challenge {challenge} has expired, verify against another challenge or create a new challenge."
            ),
        );
    let after = dump(&auth).await;
    assert_eq!(
        after.rows("auth_challenges").len(),
        before.rows("auth_challenges").len() - 1
    );
    assert_eq!(after, before.without("auth_challenges", &challenge));
}

#[tokio::test]
async fn a_replayed_code_is_refused_and_changes_nothing() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (aal2, factor_id, secret) = auth.verified_totp(&session).await;
    // The next time step: the one verify_totp used is spent.
    auth.clock.advance_seconds(30);
    let challenge = auth.challenge_id(&aal2, &factor_id).await;
    let code = totp_code(&secret, auth.now());
    let first = auth.verify(&aal2, &factor_id, &challenge, &code).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let before = dump(&auth).await;
    for token_holder in [&aal2, &session] {
        auth.verify(token_holder, &factor_id, &challenge, &code)
            .await
            .assert_auth_error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "mfa_ip_address_mismatch",
                "Challenge and verify IP addresses mismatch.",
            );
        assert_eq!(dump(&auth).await, before);
    }
}

#[tokio::test]
async fn challenges_and_verifies_over_the_rate_limit_change_nothing() {
    let auth = AuthApp::with_settings(|settings| settings.mfa_rate_limit = 3);
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, secret) = auth.enroll_totp(&session, "app").await;
    let mut challenges = Vec::new();
    for _ in 0..3 {
        challenges.push(auth.challenge_id(&session, &factor_id).await);
    }
    let before = dump(&auth).await;
    auth.challenge(&session, &factor_id, json!({}))
        .await
        .assert_auth_error(
            StatusCode::TOO_MANY_REQUESTS,
            "over_request_rate_limit",
            "Request rate limit reached",
        );
    assert_eq!(
        dump(&auth).await,
        before,
        "no challenge, no last_challenged_at"
    );

    let right = totp_code(&secret, auth.now());
    for challenge in &challenges {
        let response = auth
            .verify(&session, &factor_id, challenge, &wrong_code(&right))
            .await;
        assert_eq!(
            response.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            response.body
        );
    }
    // Over the limit even the right code does nothing.
    auth.verify(&session, &factor_id, &challenges[0], &right)
        .await
        .assert_auth_error(
            StatusCode::TOO_MANY_REQUESTS,
            "over_request_rate_limit",
            "Request rate limit reached",
        );
    assert_eq!(
        dump(&auth).await,
        before,
        "the factor stays unverified, the session aal1"
    );
}

#[tokio::test]
async fn refresh_token_reuse_revokes_the_session_and_issues_nothing() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let bystander = auth.sign_up("bystander@example.com").await;
    let rotated = auth.refresh(&session.refresh_token).await.json()["refresh_token"]
        .as_str()
        .unwrap()
        .to_owned();
    auth.clock.advance_seconds(5);
    let before = dump(&auth).await;
    auth.refresh(&session.refresh_token)
        .await
        .assert_auth_error(
            StatusCode::BAD_REQUEST,
            "refresh_token_already_used",
            "Invalid Refresh Token: Already Used",
        );
    let after = dump(&auth).await;
    // The same tokens; the family of the reused one is now all revoked, the bystander's not.
    let session_id = text(session.claims()["session_id"].as_str().unwrap());
    let expected: Vec<_> = before
        .refresh_tokens()
        .into_iter()
        .map(|(token, session, revoked)| {
            let revoked = if session == session_id {
                SqlValue::Integer(1)
            } else {
                revoked
            };
            (token, session, revoked)
        })
        .collect();
    assert_eq!(after.refresh_tokens(), expected);
    assert!(expected.contains(&(
        text(&bystander.refresh_token),
        text(bystander.claims()["session_id"].as_str().unwrap()),
        SqlValue::Integer(0)
    )));
    for table in TABLES
        .iter()
        .filter(|table| **table != "auth_refresh_tokens")
    {
        assert_eq!(after.rows(table), before.rows(table), "{table}");
    }
    // The rotated token was revoked with it; refusing it again changes nothing.
    auth.refresh(&rotated).await.assert_auth_error(
        StatusCode::BAD_REQUEST,
        "refresh_token_already_used",
        "Invalid Refresh Token: Already Used",
    );
    assert_eq!(dump(&auth).await, after);
    assert_eq!(
        auth.refresh(&bystander.refresh_token).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn forged_and_expired_access_tokens_are_refused_by_the_auth_server() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let (factor_id, secret) = auth.enroll_totp(&session, "app").await;
    let challenge = auth.challenge_id(&session, &factor_id).await;
    let code = totp_code(&secret, auth.now());
    let before = dump(&auth).await;
    for (token, reason, _, _) in forgeries(&auth, &session) {
        let attempts = [
            (Method::GET, "/auth/v1/user".to_owned(), Value::Null),
            (
                Method::POST,
                "/auth/v1/factors".to_owned(),
                json!({"factor_type": "totp", "friendly_name": "evil"}),
            ),
            (
                Method::POST,
                format!("/auth/v1/factors/{factor_id}/challenge"),
                json!({}),
            ),
            (
                Method::POST,
                format!("/auth/v1/factors/{factor_id}/verify"),
                json!({"challenge_id": challenge, "code": code}),
            ),
            (
                Method::DELETE,
                format!("/auth/v1/factors/{factor_id}"),
                Value::Null,
            ),
            (Method::POST, "/auth/v1/logout".to_owned(), Value::Null),
        ];
        for (method, path, body) in attempts {
            let request = auth.user(method.clone(), &path, &token);
            let request = if body.is_null() {
                request
            } else {
                request.json(&body)
            };
            request.send().await.assert_auth_error(
                StatusCode::FORBIDDEN,
                "bad_jwt",
                &format!("{BAD_JWT}{reason}"),
            );
            assert_eq!(dump(&auth).await, before, "{method} {path} with {token}");
        }
    }
    // The real token still works, and the code it had was never spent.
    let response = auth.verify(&session, &factor_id, &challenge, &code).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
}

#[tokio::test]
async fn forged_and_expired_access_tokens_are_refused_by_postgrest() {
    let auth = AuthApp::new();
    let session = auth.sign_up("walker@example.com").await;
    let seeded = auth
        .user(Method::POST, TABLE_URL, &session.access_token)
        .json(&json!({"name": "walker", "message": "real"}))
        .send()
        .await;
    assert_eq!(seeded.status, StatusCode::CREATED, "{}", seeded.body);
    let before = dump(&auth).await;
    for (token, _, code, message) in forgeries(&auth, &session) {
        for (method, uri) in [
            (Method::GET, TABLE_URL.to_owned()),
            (Method::POST, TABLE_URL.to_owned()),
            (Method::PATCH, format!("{TABLE_URL}?id=eq.1")),
            (Method::DELETE, format!("{TABLE_URL}?id=eq.1")),
        ] {
            let response = auth
                .user(method.clone(), &uri, &token)
                .json(&json!({"name": "forger", "message": "forged"}))
                .send()
                .await;
            response.assert_postgrest_error(StatusCode::UNAUTHORIZED, code, message);
            assert_eq!(
                response.header("www-authenticate"),
                Some(
                    format!("Bearer error=\"invalid_token\", error_description=\"{message}\"")
                        .as_str()
                )
            );
        }
        assert_eq!(dump(&auth).await, before, "{token}");
    }
}

#[tokio::test]
async fn another_users_factor_is_not_found_and_untouched() {
    let auth = AuthApp::new();
    let attacker = auth.sign_up("attacker@example.com").await;
    let victim = auth.sign_up("victim@example.com").await;
    let (factor_id, secret) = auth.enroll_totp(&victim, "victim's app").await;
    let challenge = auth.challenge_id(&victim, &factor_id).await;
    let code = totp_code(&secret, auth.now());
    let before = dump(&auth).await;
    auth.challenge(&attacker, &factor_id, json!({}))
        .await
        .assert_auth_error(
            StatusCode::NOT_FOUND,
            "mfa_factor_not_found",
            "Factor not found",
        );
    // Even with the victim's challenge and a right code.
    auth.verify(&attacker, &factor_id, &challenge, &code)
        .await
        .assert_auth_error(
            StatusCode::NOT_FOUND,
            "mfa_factor_not_found",
            "Factor not found",
        );
    auth.user(
        Method::DELETE,
        &format!("/auth/v1/factors/{factor_id}"),
        &attacker.access_token,
    )
    .send()
    .await
    .assert_auth_error(
        StatusCode::NOT_FOUND,
        "mfa_factor_not_found",
        "Factor not found",
    );
    assert_eq!(dump(&auth).await, before);
    // The victim's own verification still works.
    let response = auth.verify(&victim, &factor_id, &challenge, &code).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
}
