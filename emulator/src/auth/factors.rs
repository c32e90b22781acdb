//! `POST /auth/v1/factors` (enroll a TOTP or phone factor) and `DELETE /auth/v1/factors/{id}`
//! (unenroll), after GoTrue api/mfa.go. Factors start unverified; the first successful verify
//! marks them verified.

use crate::auth::body::{self, text};
use crate::auth::error::AuthError;
use crate::auth::service::enrolment;
use crate::auth::signed_in_user::SignedInUser;
use crate::auth::store::factors::{FactorRecord, FactorType};
use crate::auth::AuthState;
use crate::auth::{totp, validation};
use crate::random;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::Json;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Deserialize)]
struct EnrollParams {
    friendly_name: Option<String>,
    factor_type: Option<String>,
    issuer: Option<String>,
    phone: Option<String>,
}

/// GoTrue's `EnrollFactorResponse`.
#[derive(Debug, Serialize)]
pub struct EnrollResponse {
    id: String,
    #[serde(rename = "type")]
    factor_type: &'static str,
    friendly_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    totp: Option<TotpJson>,
    #[serde(skip_serializing_if = "String::is_empty")]
    phone: String,
}

#[derive(Debug, Serialize)]
struct TotpJson {
    qr_code: String,
    secret: String,
    uri: String,
}

#[derive(Debug, Serialize)]
pub struct UnenrollResponse {
    id: String,
}

pub async fn enroll(
    State(state): State<AuthState>,
    caller: SignedInUser,
    body: Bytes,
) -> Result<Json<EnrollResponse>, AuthError> {
    caller.require_not_anonymous()?;
    let session = caller
        .session("A valid session and a registered user are required to enroll a factor")?
        .clone();
    let params: EnrollParams = body::parse(&body)?;
    let factor_type = match text(params.factor_type).as_str() {
        "totp" => FactorType::Totp,
        "phone" => FactorType::Phone,
        "webauthn" => return Err(AuthError::webauthn_enroll_disabled()),
        _ => return Err(AuthError::bad_factor_type()),
    };
    let friendly_name = text(params.friendly_name);
    let now = state.clock.now_micros();
    let mut factor = FactorRecord {
        id: random::uuid()?.to_string(),
        user_id: caller.user.id.clone(),
        friendly_name: friendly_name.clone(),
        factor_type,
        verified: false,
        secret: None,
        phone: String::new(),
        last_challenged_at: None,
        created_at: now,
        updated_at: now,
    };
    let mut response = EnrollResponse {
        id: factor.id.clone(),
        factor_type: factor_type.as_str(),
        friendly_name,
        totp: None,
        phone: String::new(),
    };
    match factor_type {
        FactorType::Totp => {
            let issuer = match text(params.issuer) {
                issuer if issuer.is_empty() => state.settings.site_host().to_owned(),
                issuer => issuer,
            };
            let secret = totp::new_secret()?;
            let uri = totp::uri(&issuer, &caller.user.email, &secret);
            let qr_code = totp::qr_code_svg(&uri)?;
            factor.secret = Some(secret.clone());
            response.totp = Some(TotpJson {
                qr_code,
                secret,
                uri,
            });
        }
        FactorType::Phone => {
            let requested = text(params.phone);
            if requested.is_empty() {
                return Err(AuthError::phone_required());
            }
            factor.phone = validation::phone(&requested)?;
            response.phone = requested;
        }
    }
    let expired_before = now - state.settings.factor_expiry * 1_000_000;
    state
        .db
        .call(move |connection| {
            enrolment::enroll_factor(connection, &factor, &session, expired_before)
        })
        .await?;
    Ok(Json(response))
}

pub async fn unenroll(
    State(state): State<AuthState>,
    Path(factor_id): Path<String>,
    caller: SignedInUser,
) -> Result<Json<UnenrollResponse>, AuthError> {
    caller.require_not_anonymous()?;
    let factor = load_factor(&state, &caller, &factor_id).await?;
    let session = caller.session("A valid session and factor are required to unenroll a factor")?;
    if factor.verified && !session.is_aal2() {
        return Err(AuthError::aal2_required_to_unenroll());
    }
    let now = state.clock.now_micros();
    let id = factor.id.clone();
    state
        .db
        .call(move |connection| {
            enrolment::unenroll_factor(connection, &factor, now).map_err(AuthError::from)
        })
        .await?;
    Ok(Json(UnenrollResponse { id }))
}

/// GoTrue `loadFactor`: the `{factor_id}` of the path, which must be a UUID naming one of the
/// caller's factors that has not expired unverified.
pub async fn load_factor(
    state: &AuthState,
    caller: &SignedInUser,
    factor_id: &str,
) -> Result<FactorRecord, AuthError> {
    let id = Uuid::parse_str(factor_id)
        .map_err(|_| AuthError::factor_id_not_uuid())?
        .to_string();
    let user_id = caller.user.id.clone();
    let (lifetime, now) = (
        state.settings.factor_expiry * 1_000_000,
        state.clock.now_micros(),
    );
    let factor = state
        .db
        .call(move |connection| {
            enrolment::find_live_factor(connection, &id, &user_id, lifetime, now)
                .map_err(AuthError::from)
        })
        .await?;
    factor.ok_or_else(AuthError::factor_not_found)
}
