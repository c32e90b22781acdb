//! GoTrue's response bodies: the user (models/user.go), its identity (models/identity.go), a
//! factor (models/factor.go) and the token response (tokens.AccessTokenResponse). Field order
//! follows the Go structs; object-valued metadata serialises with sorted keys, as Go maps do.

use crate::auth::store::factors::FactorRecord;
use crate::auth::store::users::UserRecord;
use crate::timestamp::to_go_json_text;
use serde::Serialize;
use serde_json::Value;

/// Every user of the emulator signs up with email and password, with the audience and role
/// Supabase gives them.
const AUDIENCE: &str = "authenticated";
const ROLE: &str = "authenticated";

#[derive(Debug, Serialize)]
pub struct UserJson {
    pub id: String,
    pub aud: &'static str,
    pub role: &'static str,
    pub email: String,
    pub email_confirmed_at: String,
    pub phone: &'static str,
    pub confirmed_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_sign_in_at: Option<String>,
    pub app_metadata: Value,
    pub user_metadata: Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub factors: Vec<FactorJson>,
    pub identities: Vec<IdentityJson>,
    pub created_at: String,
    pub updated_at: String,
    pub is_anonymous: bool,
}

#[derive(Debug, Serialize)]
pub struct IdentityJson {
    pub identity_id: String,
    pub id: String,
    pub user_id: String,
    pub identity_data: Value,
    pub provider: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_sign_in_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub email: String,
}

#[derive(Debug, Serialize)]
pub struct FactorJson {
    pub id: String,
    pub created_at: String,
    pub updated_at: String,
    pub status: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub friendly_name: String,
    pub factor_type: &'static str,
    pub phone: String,
    pub last_challenged_at: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct TokenResponse {
    pub access_token: String,
    pub token_type: &'static str,
    pub expires_in: i64,
    pub expires_at: i64,
    pub refresh_token: String,
    pub user: UserJson,
}

pub fn user(user: &UserRecord, factors: &[FactorRecord]) -> UserJson {
    let confirmed_at = to_go_json_text(user.email_confirmed_at);
    let last_sign_in_at = user.last_sign_in_at.map(to_go_json_text);
    UserJson {
        id: user.id.clone(),
        aud: AUDIENCE,
        role: ROLE,
        email: user.email.clone(),
        email_confirmed_at: confirmed_at.clone(),
        phone: "",
        confirmed_at,
        last_sign_in_at: last_sign_in_at.clone(),
        app_metadata: user.app_metadata.clone(),
        user_metadata: user.user_metadata.clone(),
        factors: factors.iter().map(factor).collect(),
        identities: vec![IdentityJson {
            identity_id: user.identity_id.clone(),
            id: user.id.clone(),
            user_id: user.id.clone(),
            identity_data: user.identity_data.clone(),
            provider: "email",
            last_sign_in_at,
            created_at: to_go_json_text(user.created_at),
            updated_at: to_go_json_text(user.created_at),
            email: user.email.clone(),
        }],
        created_at: to_go_json_text(user.created_at),
        updated_at: to_go_json_text(user.updated_at),
        is_anonymous: false,
    }
}

pub fn factor(factor: &FactorRecord) -> FactorJson {
    FactorJson {
        id: factor.id.clone(),
        created_at: to_go_json_text(factor.created_at),
        updated_at: to_go_json_text(factor.updated_at),
        status: factor.status(),
        friendly_name: factor.friendly_name.clone(),
        factor_type: factor.factor_type.as_str(),
        phone: factor.phone.clone(),
        last_challenged_at: factor.last_challenged_at.map(to_go_json_text),
    }
}
