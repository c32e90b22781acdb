//! `POST /auth/v1/factors/{id}/challenge` (GoTrue api/mfa.go `ChallengeFactor`): a challenge to
//! verify against within the challenge lifetime. For a phone factor the emulator "sends" the
//! 6-digit code by writing it to the SMS outbox.

use crate::auth::body::{self, text};
use crate::auth::error::AuthError;
use crate::auth::factors::load_factor;
use crate::auth::rate_limit::Action;
use crate::auth::service::challenge::issue_challenge;
use crate::auth::settings::PHONE_CODE_DIGITS;
use crate::auth::signed_in_user::SignedInUser;
use crate::auth::store::factors::{ChallengeRecord, FactorType};
use crate::auth::store::sent_sms::SmsRecord;
use crate::auth::AuthState;
use crate::random;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::Json;
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct ChallengeParams {
    channel: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ChallengeResponse {
    id: String,
    #[serde(rename = "type")]
    factor_type: &'static str,
    expires_at: i64,
}

pub async fn challenge(
    State(state): State<AuthState>,
    Path(factor_id): Path<String>,
    caller: SignedInUser,
    body: Bytes,
) -> Result<Json<ChallengeResponse>, AuthError> {
    caller.require_not_anonymous()?;
    let factor = load_factor(&state, &caller, &factor_id).await?;
    let now = state.clock.now_micros();
    state.rate_limit.check(
        &caller.user.id,
        Action::Challenge,
        state.settings.mfa_rate_limit,
        now,
    )?;
    let mut challenge = ChallengeRecord {
        id: random::uuid()?.to_string(),
        factor_id: factor.id.clone(),
        otp_code: None,
        created_at: now,
        verified_at: None,
    };
    let mut sms = None;
    if factor.factor_type == FactorType::Phone {
        // Only phone challenges read the body (supabase-js also sends `factorId`, ignored).
        let params: ChallengeParams = body::parse(&body)?;
        let channel = text(params.channel);
        if !matches!(channel.as_str(), "" | "sms" | "whatsapp") {
            return Err(AuthError::invalid_channel());
        }
        let code = random::digits(PHONE_CODE_DIGITS)?;
        sms = Some(SmsRecord {
            phone: format!("+{}", factor.phone),
            body: format!("Your code is {code}"),
            sent_at: now,
        });
        challenge.otp_code = Some(code);
    }
    let response = ChallengeResponse {
        id: challenge.id.clone(),
        factor_type: factor.factor_type.as_str(),
        expires_at: (now + state.settings.challenge_expiry * 1_000_000).div_euclid(1_000_000),
    };
    state
        .db
        .call(move |connection| {
            issue_challenge(connection, &challenge, sms.as_ref()).map_err(AuthError::from)
        })
        .await?;
    Ok(Json(response))
}
