//! The user and MFA factor JSON of the auth server (supabase/auth models/user.go, models/factor.go).
//!
//! The fields callers branch on are typed; everything else the server sends is kept in `extra`
//! and written back out, so a user round-trips as supabase-js would hand it over.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A user as `GET /user` and token responses return it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    pub id: String,
    pub aud: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_confirmed_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone_confirmed_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation_sent_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_sign_in_at: Option<String>,
    pub app_metadata: Map<String, Value>,
    pub user_metadata: Map<String, Value>,
    /// Omitted by the server when the user has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factors: Option<Vec<Factor>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identities: Option<Vec<Value>>,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_anonymous: Option<bool>,
    /// Every other field, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl User {
    /// The user's factors, empty when the server sent none.
    pub fn factors(&self) -> &[Factor] {
        self.factors.as_deref().unwrap_or_default()
    }
}

/// One enrolled MFA factor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Factor {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friendly_name: Option<String>,
    pub factor_type: FactorType,
    pub status: FactorStatus,
    pub created_at: String,
    pub updated_at: String,
    /// `""` for TOTP factors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    /// `null` until the factor is first challenged.
    #[serde(default)]
    pub last_challenged_at: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The kind of a factor. Kinds this client does not know are kept by name, so a new server-side
/// kind never makes a whole user unreadable.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum FactorType {
    Totp,
    Phone,
    Webauthn,
    Other(String),
}

impl FactorType {
    pub fn as_str(&self) -> &str {
        match self {
            FactorType::Totp => "totp",
            FactorType::Phone => "phone",
            FactorType::Webauthn => "webauthn",
            FactorType::Other(name) => name,
        }
    }
}

impl From<String> for FactorType {
    fn from(name: String) -> Self {
        match name.as_str() {
            "totp" => FactorType::Totp,
            "phone" => FactorType::Phone,
            "webauthn" => FactorType::Webauthn,
            _ => FactorType::Other(name),
        }
    }
}

impl From<FactorType> for String {
    fn from(factor_type: FactorType) -> Self {
        factor_type.as_str().to_owned()
    }
}

/// `unverified` after enrolment, `verified` after the first successful verify.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum FactorStatus {
    Verified,
    Unverified,
    Other(String),
}

impl FactorStatus {
    pub fn as_str(&self) -> &str {
        match self {
            FactorStatus::Verified => "verified",
            FactorStatus::Unverified => "unverified",
            FactorStatus::Other(name) => name,
        }
    }
}

impl From<String> for FactorStatus {
    fn from(name: String) -> Self {
        match name.as_str() {
            "verified" => FactorStatus::Verified,
            "unverified" => FactorStatus::Unverified,
            _ => FactorStatus::Other(name),
        }
    }
}

impl From<FactorStatus> for String {
    fn from(status: FactorStatus) -> Self {
        status.as_str().to_owned()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// A user as the auth server sends it, with one verified TOTP factor.
    pub(crate) fn user_json() -> Value {
        json!({
            "id": "11111111-1111-1111-1111-111111111111",
            "aud": "authenticated",
            "role": "authenticated",
            "email": "ann@example.com",
            "phone": "",
            "email_confirmed_at": "2024-01-01T00:00:00Z",
            "confirmed_at": "2024-01-01T00:00:00Z",
            "last_sign_in_at": "2024-01-01T00:00:00Z",
            "app_metadata": {"provider": "email", "providers": ["email"]},
            "user_metadata": {"nick": "<b>ann</b>"},
            "identities": [{"id": "1", "provider": "email"}],
            "factors": [{
                "id": "f1",
                "created_at": "2024-01-01T00:00:00Z",
                "updated_at": "2024-01-01T00:00:00Z",
                "status": "verified",
                "friendly_name": "phone app",
                "factor_type": "totp",
                "phone": "",
                "last_challenged_at": null
            }],
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-02T00:00:00Z",
            "is_anonymous": false,
            "new_field": {"kept": true}
        })
    }

    #[test]
    fn users_round_trip_with_unknown_fields_kept() {
        let json = user_json();
        let user: User = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(user.email.as_deref(), Some("ann@example.com"));
        assert_eq!(user.extra.get("new_field"), Some(&json!({"kept": true})));
        let factor = &user.factors()[0];
        assert_eq!(factor.factor_type, FactorType::Totp);
        assert_eq!(factor.status, FactorStatus::Verified);
        assert_eq!(factor.last_challenged_at, None);
        assert_eq!(serde_json::to_value(&user).unwrap(), json);
    }

    #[test]
    fn users_without_factors_have_none() {
        let mut json = user_json();
        json.as_object_mut().unwrap().remove("factors");
        let user: User = serde_json::from_value(json.clone()).unwrap();
        assert!(user.factors().is_empty());
        assert_eq!(serde_json::to_value(&user).unwrap(), json);
    }

    #[test]
    fn required_user_fields_are_checked() {
        for (field, value) in [
            ("id", json!(5)),
            ("aud", Value::Null),
            ("app_metadata", json!([])),
        ] {
            let mut json = user_json();
            json[field] = value;
            assert!(serde_json::from_value::<User>(json).is_err(), "{field}");
        }
        let mut json = user_json();
        json.as_object_mut().unwrap().remove("created_at");
        let error = serde_json::from_value::<User>(json).unwrap_err();
        assert!(error.to_string().contains("created_at"), "{error}");
    }

    #[test]
    fn unknown_factor_kinds_and_statuses_are_kept_by_name() {
        let factor: Factor = serde_json::from_value(json!({
            "id": "f", "created_at": "t", "updated_at": "t",
            "status": "pending", "factor_type": "passkey"
        }))
        .unwrap();
        assert_eq!(factor.factor_type, FactorType::Other("passkey".into()));
        assert_eq!(factor.status, FactorStatus::Other("pending".into()));
        let json = serde_json::to_value(&factor).unwrap();
        assert_eq!(
            (json["factor_type"].as_str(), json["status"].as_str()),
            (Some("passkey"), Some("pending"))
        );
        for (name, kind) in [
            ("totp", FactorType::Totp),
            ("phone", FactorType::Phone),
            ("webauthn", FactorType::Webauthn),
        ] {
            assert_eq!(FactorType::from(name.to_owned()), kind);
            assert_eq!(kind.as_str(), name);
        }
        assert_eq!(
            FactorStatus::from("unverified".to_owned()),
            FactorStatus::Unverified
        );
    }
}
