//! Sessions: what token responses contain (auth-js `_sessionResponse` in src/lib/fetch.ts) and
//! what is persisted under the storage key (`_isValidSession` in GoTrueClient.ts).

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::error::AuthError;
use super::user::User;
use crate::client::unix_time::UnixTime;

/// A signed-in session as supabase-js keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub access_token: String,
    #[serde(default = "bearer")]
    pub token_type: String,
    /// Seconds the access token lived for when it was issued.
    #[serde(serialize_with = "js_number")]
    pub expires_in: f64,
    /// Unix seconds at which the access token expires.
    #[serde(serialize_with = "js_number")]
    pub expires_at: f64,
    pub refresh_token: String,
    pub user: User,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_refresh_token: Option<String>,
    /// Every other field of the token response (e.g. `weak_password`), kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn bearer() -> String {
    "bearer".to_owned()
}

/// Writes whole numbers without a fraction, as `JSON.stringify` does (`3600`, not `3600.0`).
pub(crate) fn js_number<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
    if value.fract() == 0.0 && value.abs() <= MAX_SAFE_INTEGER {
        serializer.serialize_i64(*value as i64)
    } else {
        serializer.serialize_f64(*value)
    }
}

impl Session {
    /// A session for tokens obtained elsewhere (`setSession`): `expires_in` is what is left.
    /// `expires_at` is in unix seconds, as the access token's `exp` claim gives it.
    pub fn from_tokens(
        access_token: String,
        refresh_token: String,
        user: User,
        expires_at: f64,
        now: UnixTime,
    ) -> Self {
        Session {
            access_token,
            token_type: bearer(),
            expires_in: expires_at - now.seconds(),
            expires_at,
            refresh_token,
            user,
            provider_token: None,
            provider_refresh_token: None,
            extra: Map::new(),
        }
    }

    /// When the access token expires.
    pub fn expiry(&self) -> UnixTime {
        UnixTime::from_seconds(self.expires_at)
    }

    /// The JSON supabase-js persists under the storage key.
    pub fn to_storage(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// A persisted session. As auth-js, anything that is not an object with `access_token`,
    /// `refresh_token` and `expires_at` is not a session; beyond that the fields must be typed.
    pub fn from_storage(text: &str) -> Result<Session, String> {
        let value: Value = serde_json::from_str(text)
            .map_err(|error| format!("stored session is not JSON: {error}"))?;
        let object = value
            .as_object()
            .ok_or_else(|| "stored session is not an object".to_owned())?;
        for field in ["access_token", "refresh_token", "expires_at"] {
            if !object.contains_key(field) {
                return Err(format!("stored session has no {field}"));
            }
        }
        Session::deserialize(&value).map_err(|error| format!("stored session: {error}"))
    }
}

/// Why the server thinks a password is weak (`weak_password` of a password sign-in).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeakPassword {
    pub reasons: Vec<String>,
    pub message: String,
}

/// What a token endpoint answered: `session` only when the response holds one.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionResponse {
    pub session: Option<Session>,
    pub user: Option<User>,
    pub weak_password: Option<WeakPassword>,
}

impl SessionResponse {
    /// The session a sign-in must return (`AuthInvalidTokenResponseError` otherwise).
    pub fn require_session(self) -> Result<Session, AuthError> {
        self.session
            .ok_or(AuthError::InvalidTokenResponse { reason: None })
    }
}

/// `_sessionResponse` (+ `_sessionResponsePassword`'s weak password): a session iff
/// `access_token`, `refresh_token` and `expires_in` are truthy; `expires_at` computed as
/// `round(now_s) + expires_in` when the server gave none; the user from `user`, or the body itself
/// when it has a string `id` (a sign-up awaiting confirmation returns a bare user).
pub fn parse_session_response(data: &Value, now: UnixTime) -> Result<SessionResponse, AuthError> {
    let empty = Map::new();
    let object = data.as_object().unwrap_or(&empty);
    let field = |name: &str| object.get(name);
    let has_session = ["access_token", "refresh_token", "expires_in"]
        .iter()
        .all(|name| truthy(field(name)));
    let invalid = |what: &str, error: serde_json::Error| AuthError::InvalidTokenResponse {
        reason: Some(format!("{what}: {error}")),
    };
    let session = if has_session {
        let mut session = object.clone();
        if !truthy(field("expires_at")) {
            let expires_in = field("expires_in").and_then(Value::as_f64).ok_or_else(|| {
                AuthError::InvalidTokenResponse {
                    reason: Some("session: expires_in is not a number".into()),
                }
            })?;
            session.insert(
                "expires_at".into(),
                Value::from(now.rounded_seconds() + expires_in),
            );
        }
        Some(Session::deserialize(&Value::Object(session)).map_err(|e| invalid("session", e))?)
    } else {
        None
    };
    let user = match (&session, field("user")) {
        (Some(session), _) => Some(session.user.clone()),
        (None, Some(user)) if !user.is_null() => {
            Some(User::deserialize(user).map_err(|e| invalid("user", e))?)
        }
        (None, _) if field("id").is_some_and(Value::is_string) => {
            Some(User::deserialize(data).map_err(|e| invalid("user", e))?)
        }
        (None, _) => None,
    };
    Ok(SessionResponse {
        session,
        user,
        weak_password: field("weak_password").and_then(weak_password),
    })
}

/// A `weak_password` with a non-empty all-string `reasons` list and a non-empty `message`.
fn weak_password(value: &Value) -> Option<WeakPassword> {
    let weak = WeakPassword::deserialize(value).ok()?;
    (!weak.reasons.is_empty() && !weak.message.is_empty()).then_some(weak)
}

/// JavaScript truthiness of an optional JSON value.
fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::auth::user::tests::user_json;
    use serde_json::json;

    pub(crate) const NOW_MS: UnixTime = UnixTime::from_millis(1_700_000_000_400.0);

    pub(crate) fn token_json() -> Value {
        json!({
            "access_token": "a.b.c",
            "token_type": "bearer",
            "expires_in": 3600,
            "expires_at": 1_700_003_600,
            "refresh_token": "r1",
            "user": user_json()
        })
    }

    pub(crate) fn session() -> Session {
        parse_session_response(&token_json(), NOW_MS)
            .unwrap()
            .require_session()
            .unwrap()
    }

    #[test]
    fn token_responses_become_sessions() {
        let response = parse_session_response(&token_json(), NOW_MS).unwrap();
        let session = response.session.clone().unwrap();
        assert_eq!(session.access_token, "a.b.c");
        assert_eq!(session.refresh_token, "r1");
        assert_eq!(
            (session.expires_in, session.expires_at),
            (3600.0, 1_700_003_600.0)
        );
        assert_eq!(session.user.id, "11111111-1111-1111-1111-111111111111");
        assert_eq!(response.user, Some(session.user));
        assert_eq!(response.weak_password, None);
    }

    #[test]
    fn expires_at_is_computed_from_the_rounded_clock_when_absent() {
        for (now_ms, expected) in [
            (1_700_000_000_400.0, 1_700_003_600.0),
            (1_700_000_000_500.0, 1_700_003_601.0),
            (1_700_000_000_499.0, 1_700_003_600.0),
        ] {
            for absent in [Value::Null, json!(0)] {
                let mut json = token_json();
                json["expires_at"] = absent.clone();
                let session = parse_session_response(&json, UnixTime::from_millis(now_ms))
                    .unwrap()
                    .session
                    .unwrap();
                assert_eq!(session.expires_at, expected, "{now_ms} {absent}");
            }
        }
        let mut json = token_json();
        json.as_object_mut().unwrap().remove("expires_at");
        let session = parse_session_response(&json, NOW_MS)
            .unwrap()
            .session
            .unwrap();
        assert_eq!(session.expires_at, 1_700_003_600.0);
    }

    #[test]
    fn responses_without_tokens_are_not_sessions() {
        for field in ["access_token", "refresh_token", "expires_in"] {
            for falsy in [Value::Null, json!(""), json!(0), json!(false)] {
                let mut json = token_json();
                json[field] = falsy;
                let response = parse_session_response(&json, NOW_MS).unwrap();
                assert_eq!(response.session, None, "{field}");
                // The user still comes through, as supabase-js returns it.
                assert!(response.user.is_some());
                assert_eq!(
                    response.clone().require_session(),
                    Err(AuthError::InvalidTokenResponse { reason: None })
                );
                assert_eq!(
                    response.require_session().unwrap_err().to_string(),
                    "Auth session or user missing"
                );
            }
        }
        let nothing = parse_session_response(&json!({"msg": "ok"}), NOW_MS).unwrap();
        assert_eq!((nothing.session, nothing.user), (None, None));
        let not_object = parse_session_response(&json!([1]), NOW_MS).unwrap();
        assert_eq!(not_object.session, None);
    }

    #[test]
    fn a_bare_user_is_the_user_of_an_unconfirmed_sign_up() {
        let response = parse_session_response(&user_json(), NOW_MS).unwrap();
        assert_eq!(response.session, None);
        assert_eq!(
            response.user.unwrap().email.as_deref(),
            Some("ann@example.com")
        );
    }

    #[test]
    fn malformed_sessions_are_refused_with_the_reason() {
        let mut json = token_json();
        json["user"]["id"] = json!(5);
        let error = parse_session_response(&json, NOW_MS).unwrap_err();
        assert_eq!(error.name(), "AuthInvalidTokenResponseError");
        assert!(
            error
                .to_string()
                .starts_with("Auth session or user missing: session: invalid type: integer `5`"),
            "{error}"
        );
        let mut json = token_json();
        json.as_object_mut().unwrap().remove("user");
        let error = parse_session_response(&json, NOW_MS).unwrap_err();
        assert!(
            error.to_string().contains("missing field `user`"),
            "{error}"
        );
        let mut json = token_json();
        json["expires_in"] = json!("3600");
        json["expires_at"] = Value::Null;
        let error = parse_session_response(&json, NOW_MS).unwrap_err();
        assert!(
            error.to_string().contains("expires_in is not a number"),
            "{error}"
        );
    }

    #[test]
    fn weak_password_hints_are_kept_when_well_formed() {
        let mut json = token_json();
        json["weak_password"] = json!({"reasons": ["length"], "message": "too short"});
        let response = parse_session_response(&json, NOW_MS).unwrap();
        assert_eq!(
            response.weak_password,
            Some(WeakPassword {
                reasons: vec!["length".into()],
                message: "too short".into()
            })
        );
        // supabase-js copies the whole response into the session, hint included.
        assert!(response
            .session
            .unwrap()
            .extra
            .contains_key("weak_password"));
        for bad in [
            json!({"reasons": [], "message": "m"}),
            json!({"reasons": ["x"], "message": ""}),
            json!({"reasons": [1], "message": "m"}),
        ] {
            let mut json = token_json();
            json["weak_password"] = bad;
            assert_eq!(
                parse_session_response(&json, NOW_MS).unwrap().weak_password,
                None
            );
        }
    }

    #[test]
    fn sessions_persist_as_supabase_js_json_and_load_back() {
        let session = session();
        let text = session.to_storage().unwrap();
        assert!(
            text.contains(r#""expires_in":3600,"expires_at":1700003600,"#),
            "{text}"
        );
        let stored: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(stored, token_json());
        assert_eq!(Session::from_storage(&text), Ok(session));
    }

    #[test]
    fn stored_values_that_are_not_sessions_are_refused() {
        let cases = [
            ("nope", "stored session is not JSON"),
            ("[]", "stored session is not an object"),
            (
                r#"{"access_token":"a","refresh_token":"r"}"#,
                "stored session has no expires_at",
            ),
            (
                r#"{"refresh_token":"r","expires_at":1}"#,
                "stored session has no access_token",
            ),
            (
                r#"{"access_token":"a","refresh_token":"r","expires_at":1}"#,
                "stored session: missing field",
            ),
        ];
        for (text, reason) in cases {
            let error = Session::from_storage(text).unwrap_err();
            assert!(error.starts_with(reason), "{text}: {error}");
        }
    }

    #[test]
    fn tokens_from_elsewhere_get_the_remaining_lifetime() {
        let user: User = serde_json::from_value(user_json()).unwrap();
        let session = Session::from_tokens(
            "a".into(),
            "r".into(),
            user,
            1_700_000_060.0,
            UnixTime::from_millis(1_700_000_000_500.0),
        );
        assert_eq!(
            (session.expires_at, session.expires_in),
            (1_700_000_060.0, 59.5)
        );
        assert_eq!(session.token_type, "bearer");
        assert!(session
            .to_storage()
            .unwrap()
            .contains(r#""expires_in":59.5"#));
    }
}
