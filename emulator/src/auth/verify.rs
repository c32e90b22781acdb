//! `POST /auth/v1/factors/{id}/verify` (GoTrue api/mfa.go `VerifyFactor`): the code for a
//! challenge. Success raises the session to AAL2 and answers with a new token response: the AMR
//! gains `totp` or `mfa/phone`, the factor becomes verified, the refresh token rotates (so the
//! AAL1 refresh token can no longer mint AAL2 tokens), the user's other sessions below AAL2 end
//! and their other unverified factors of that type go. A verified challenge cannot be reused.

use crate::auth::body::{self, text};
use crate::auth::error::AuthError;
use crate::auth::factors::load_factor;
use crate::auth::json::TokenResponse;
use crate::auth::rate_limit::Action;
use crate::auth::service::verification::{self, Verification};
use crate::auth::signed_in_user::SignedInUser;
use crate::auth::with_signer::with_signer;
use crate::auth::AuthState;
use crate::http::client_address::ClientAddress;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::Json;
use serde::Deserialize;
use uuid::Uuid;

#[derive(Deserialize)]
struct VerifyParams {
    challenge_id: Option<String>,
    code: Option<String>,
}

pub async fn verify(
    State(state): State<AuthState>,
    Path(factor_id): Path<String>,
    client: ClientAddress,
    caller: SignedInUser,
    body: Bytes,
) -> Result<Json<TokenResponse>, AuthError> {
    let now = state.clock.now_micros();
    state.rate_limit.check(
        &client.key(),
        Action::TokenVerification,
        state.settings.token_verifications_limit,
        now,
    )?;
    caller.require_not_anonymous()?;
    let factor = load_factor(&state, &caller, &factor_id).await?;
    state.rate_limit.check(
        &caller.user.id,
        Action::Verify,
        state.settings.mfa_rate_limit,
        now,
    )?;
    let params: VerifyParams = body::parse(&body)?;
    let challenge_id = match params.challenge_id {
        None => Uuid::nil(),
        Some(text) => parse_go_uuid(&text)?,
    }
    .to_string();
    let code = text(params.code);
    if code.is_empty() {
        return Err(AuthError::code_required());
    }
    let session = caller
        .session("Cannot read SessionId claim as UUID")?
        .clone();
    let verification = Verification {
        factor,
        session,
        user_id: caller.user.id.clone(),
        challenge_id,
        code,
        challenge_lifetime: state.settings.challenge_expiry * 1_000_000,
    };
    let response = with_signer(&state, move |connection, signer| {
        verification::verify_challenge(connection, signer, &verification, now)
    })
    .await?;
    Ok(Json(response))
}

/// gofrs/uuid's text forms (canonical, 32 hex digits, braced, URN); its errors become GoTrue's
/// `bad_json` because the UUID is decoded with the body.
fn parse_go_uuid(text: &str) -> Result<Uuid, AuthError> {
    let quoted = serde_json::to_string(text).expect("a string serialises");
    match text.len() {
        32 | 36 | 38 | 41 | 45 => Uuid::parse_str(text).map_err(|_| {
            AuthError::bad_json(&format!("uuid: incorrect UUID format in string {quoted}"))
        }),
        len => Err(AuthError::bad_json(&format!(
            "uuid: incorrect UUID length {len} in string {quoted}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_ids_parse_like_gofrs() {
        let id = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";
        assert_eq!(parse_go_uuid(id).unwrap().to_string(), id);
        assert_eq!(parse_go_uuid(&id.replace('-', "")).unwrap().to_string(), id);
        assert_eq!(
            parse_go_uuid("abc"),
            Err(AuthError::bad_json(
                "uuid: incorrect UUID length 3 in string \"abc\""
            ))
        );
        assert_eq!(
            parse_go_uuid(&"z".repeat(36)).unwrap_err().message,
            format!(
                "Could not parse request body as JSON: uuid: incorrect UUID format in string \"{}\"",
                "z".repeat(36)
            )
        );
    }
}
