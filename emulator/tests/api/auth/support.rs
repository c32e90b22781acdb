//! Auth test harness: the app on a manual clock with fast password hashing, requests as
//! supabase-js sends them, and an independent TOTP implementation (RFC 6238) to play the
//! authenticator app.

use crate::support::{RequestSpec, TestApp, TestResponse};
use axum::http::{Method, StatusCode};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use geocache_emulator::auth::settings::AuthSettings;
use geocache_emulator::clock::ManualClock;
use geocache_emulator::db::DbLocation;
use geocache_emulator::keys::DEFAULT_JWT_SECRET;
use geocache_emulator::state::AppState;
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha1::Sha1;

pub const API_URL: &str = "http://127.0.0.1:54321";
pub const PASSWORD: &str = "correct horse battery";
pub const API_VERSION: &str = "2024-01-01";
/// The per-address auth limits for tests that are not about them.
pub const RAISED_LIMIT: u32 = 1_000_000;

pub struct AuthApp {
    pub app: TestApp,
    pub clock: ManualClock,
}

/// A signed-in session as the token response gave it.
#[derive(Debug, Clone)]
pub struct Session {
    pub access_token: String,
    pub refresh_token: String,
    pub user_id: String,
    pub body: Value,
}

impl Session {
    fn from_response(response: &TestResponse) -> Session {
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        let body = response.json();
        Session {
            access_token: body["access_token"].as_str().unwrap().to_owned(),
            refresh_token: body["refresh_token"].as_str().unwrap().to_owned(),
            user_id: body["user"]["id"].as_str().unwrap().to_owned(),
            body,
        }
    }

    pub fn claims(&self) -> Value {
        claims(&self.access_token)
    }
}

/// The claims of a JWT, unverified.
pub fn claims(token: &str) -> Value {
    let payload = token.split('.').nth(1).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}

impl AuthApp {
    pub fn new() -> AuthApp {
        AuthApp::with_settings(|_| {})
    }

    pub fn with_settings(change: impl FnOnce(&mut AuthSettings)) -> AuthApp {
        // Every in-process request counts as one client, so the per-address limits are raised out
        // of the way; the tests of those limits set their own.
        let mut settings = AuthSettings {
            api_url: API_URL.to_owned(),
            password_hash_cost: 4,
            sign_in_sign_ups_limit: RAISED_LIMIT,
            token_refresh_limit: RAISED_LIMIT,
            token_verifications_limit: RAISED_LIMIT,
            ..AuthSettings::default()
        };
        change(&mut settings);
        // A whole second, mid-period: TOTP steps and second-granular claims are predictable.
        let clock = ManualClock::starting_at_micros(1_800_000_010_000_000);
        let state = AppState::open(&DbLocation::Memory, DEFAULT_JWT_SECRET)
            .unwrap()
            .with_clock(clock.clock())
            .with_auth_settings(settings);
        AuthApp {
            app: TestApp::with_state(state),
            clock,
        }
    }

    pub fn now(&self) -> i64 {
        self.app.state.clock.now_seconds()
    }

    /// A request as supabase-js's auth client sends it before sign-in: the anon key as
    /// `apikey` and bearer.
    pub fn anon(&self, method: Method, path: &str) -> RequestSpec {
        self.app.anon(method, path)
    }

    /// A request as a signed-in client sends it: the anon key as `apikey`, the user's token as
    /// bearer.
    pub fn user(&self, method: Method, path: &str, access_token: &str) -> RequestSpec {
        self.app
            .bare(method, path)
            .header("apikey", &self.app.anon)
            .header("authorization", &format!("Bearer {access_token}"))
    }

    pub async fn sign_up(&self, email: &str) -> Session {
        let response = self
            .anon(Method::POST, "/auth/v1/signup")
            .json(&json!({"email": email, "password": PASSWORD}))
            .send()
            .await;
        Session::from_response(&response)
    }

    pub async fn sign_in(&self, email: &str) -> Session {
        let response = self
            .anon(Method::POST, "/auth/v1/token?grant_type=password")
            .json(&json!({"email": email, "password": PASSWORD}))
            .send()
            .await;
        Session::from_response(&response)
    }

    pub async fn refresh(&self, refresh_token: &str) -> TestResponse {
        self.anon(Method::POST, "/auth/v1/token?grant_type=refresh_token")
            .json(&json!({"refresh_token": refresh_token}))
            .send()
            .await
    }

    pub async fn get_user(&self, access_token: &str) -> TestResponse {
        self.user(Method::GET, "/auth/v1/user", access_token)
            .send()
            .await
    }

    pub async fn enroll(&self, session: &Session, params: Value) -> TestResponse {
        self.user(Method::POST, "/auth/v1/factors", &session.access_token)
            .json(&params)
            .send()
            .await
    }

    /// Enrolls a TOTP factor; returns its id and secret.
    pub async fn enroll_totp(&self, session: &Session, name: &str) -> (String, String) {
        let response = self
            .enroll(
                session,
                json!({"factor_type": "totp", "friendly_name": name}),
            )
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        let body = response.json();
        (
            body["id"].as_str().unwrap().to_owned(),
            body["totp"]["secret"].as_str().unwrap().to_owned(),
        )
    }

    pub async fn enroll_phone(&self, session: &Session, name: &str, phone: &str) -> String {
        let response = self
            .enroll(
                session,
                json!({"factor_type": "phone", "friendly_name": name, "phone": phone}),
            )
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        response.json()["id"].as_str().unwrap().to_owned()
    }

    pub async fn challenge(&self, session: &Session, factor_id: &str, body: Value) -> TestResponse {
        self.user(
            Method::POST,
            &format!("/auth/v1/factors/{factor_id}/challenge"),
            &session.access_token,
        )
        .json(&body)
        .send()
        .await
    }

    /// Challenges the factor and returns the challenge id.
    pub async fn challenge_id(&self, session: &Session, factor_id: &str) -> String {
        let response = self
            .challenge(session, factor_id, json!({"factorId": factor_id}))
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        response.json()["id"].as_str().unwrap().to_owned()
    }

    pub async fn verify(
        &self,
        session: &Session,
        factor_id: &str,
        challenge_id: &str,
        code: &str,
    ) -> TestResponse {
        self.user(
            Method::POST,
            &format!("/auth/v1/factors/{factor_id}/verify"),
            &session.access_token,
        )
        .json(&json!({"challenge_id": challenge_id, "code": code}))
        .send()
        .await
    }

    /// Enrolls a TOTP factor and verifies it; returns the AAL2 session and the factor.
    pub async fn verified_totp(&self, session: &Session) -> (Session, String, String) {
        let (factor_id, secret) = self.enroll_totp(session, "phone app").await;
        let challenge_id = self.challenge_id(session, &factor_id).await;
        let code = totp_code(&secret, self.now());
        let response = self.verify(session, &factor_id, &challenge_id, &code).await;
        (Session::from_response(&response), factor_id, secret)
    }

    /// The SMS outbox, read with the service_role key.
    pub async fn outbox(&self) -> Vec<Value> {
        let response = self
            .app
            .bare(Method::GET, "/emulator/v1/sms")
            .header("apikey", &self.app.service)
            .send()
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        response.json().as_array().cloned().unwrap()
    }

    /// The code in the newest SMS.
    pub async fn last_sms_code(&self) -> String {
        let outbox = self.outbox().await;
        let body = outbox.last().unwrap()["body"].as_str().unwrap().to_owned();
        body.rsplit(' ').next().unwrap().to_owned()
    }
}

impl TestResponse {
    /// Asserts GoTrue's original error body `{"code":<status>,"error_code","msg"}` (in that
    /// order) and the `x-sb-error-code` header.
    #[track_caller]
    pub fn assert_auth_error(&self, status: StatusCode, code: &str, message: &str) {
        assert_eq!(self.status, status, "{}", self.body);
        let expected = format!(
            "{{\"code\":{},\"error_code\":{},\"msg\":{}}}",
            status.as_u16(),
            json!(code),
            json!(message)
        );
        assert_eq!(self.body, expected);
        assert_eq!(
            self.header("x-sb-error-code"),
            Some(code),
            "{:?}",
            self.headers
        );
        assert_eq!(self.header("x-supabase-api-version"), None);
        assert_eq!(self.header("content-type"), Some("application/json"));
    }

    /// Asserts GoTrue's 2024-01-01 error body `{"code","message"}` and its headers.
    #[track_caller]
    pub fn assert_current_auth_error(&self, status: StatusCode, code: &str, message: &str) {
        assert_eq!(self.status, status, "{}", self.body);
        let expected = format!(
            "{{\"code\":{},\"message\":{}}}",
            json!(code),
            json!(message)
        );
        assert_eq!(self.body, expected);
        assert_eq!(self.header("x-sb-error-code"), Some(code));
        assert_eq!(self.header("x-supabase-api-version"), Some(API_VERSION));
    }
}

/// RFC 6238 TOTP (SHA1, 6 digits, 30 s) for a base32 secret at Unix time `time`.
pub fn totp_code(secret: &str, time: i64) -> String {
    let key = base32_decode(secret);
    let counter = u64::try_from(time / 30).unwrap();
    let mut mac = <Hmac<Sha1> as KeyInit>::new_from_slice(&key).unwrap();
    mac.update(&counter.to_be_bytes());
    let digest = mac.finalize().into_bytes();
    let offset = usize::from(digest[19] & 0x0f);
    let binary = u32::from_be_bytes(digest[offset..offset + 4].try_into().unwrap()) & 0x7fff_ffff;
    format!("{:06}", binary % 1_000_000)
}

/// RFC 4648 base32 without padding.
fn base32_decode(text: &str) -> Vec<u8> {
    let mut bits: u64 = 0;
    let mut count = 0;
    let mut bytes = Vec::new();
    for character in text.bytes() {
        let value = match character {
            b'A'..=b'Z' => character - b'A',
            b'2'..=b'7' => character - b'2' + 26,
            other => panic!("not base32: {}", char::from(other)),
        };
        bits = (bits << 5) | u64::from(value);
        count += 5;
        if count >= 8 {
            count -= 8;
            bytes.push(u8::try_from((bits >> count) & 0xff).unwrap());
        }
    }
    bytes
}

#[test]
fn the_test_totp_matches_rfc_6238() {
    // Appendix B: secret "12345678901234567890", SHA1, T = 59 s -> 94287082 (8 digits).
    let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
    assert_eq!(base32_decode(secret), b"12345678901234567890");
    assert_eq!(totp_code(secret, 59), "287082");
    assert_eq!(totp_code(secret, 1_111_111_109), "081804");
}
