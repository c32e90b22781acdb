//! Verifying an MFA challenge (GoTrue api/mfa.go `VerifyFactor`, after the request is read): the
//! code is checked, and on success the session is raised to AAL2 in one transaction.

use crate::auth::error::AuthError;
use crate::auth::json::TokenResponse;
use crate::auth::session_tokens::{self, Signer};
use crate::auth::store::factors::{self, FactorRecord, FactorType};
use crate::auth::store::sessions::{self, SessionRecord, AAL2};
use crate::auth::{constant_time, totp};
use rusqlite::{Connection, Transaction};

/// What a verification is about: the caller's factor, session and the code they sent for a
/// challenge.
pub struct Verification {
    pub factor: FactorRecord,
    pub session: SessionRecord,
    pub user_id: String,
    pub challenge_id: String,
    pub code: String,
    /// How long a challenge may be answered, in microseconds.
    pub challenge_lifetime: i64,
}

/// Checks the code for the challenge and, when it is right, verifies the factor, adds its AMR
/// entry, rotates the refresh token, raises the session to AAL2, ends the user's other sessions
/// below AAL2 and drops their other unverified factors of that type.
pub fn verify_challenge(
    connection: &mut Connection,
    signer: Signer<'_>,
    verification: &Verification,
    now: i64,
) -> Result<TokenResponse, AuthError> {
    let Verification {
        factor,
        session,
        user_id,
        challenge_id,
        code,
        challenge_lifetime,
    } = verification;
    let transaction = connection.transaction()?;
    // A second factor may only be added by someone who passed the first: otherwise a password
    // alone could verify a factor enrolled earlier and reach AAL2 with it.
    if !factor.verified
        && !session.is_aal2()
        && factors::list_of_user(&transaction, user_id)?
            .iter()
            .any(|other| other.verified)
    {
        return Err(AuthError::aal2_required_to_verify());
    }
    let challenge = factors::find_challenge(&transaction, challenge_id, &factor.id)?
        .ok_or_else(AuthError::challenge_not_found)?;
    if challenge.verified_at.is_some() {
        return Err(AuthError::challenge_already_used());
    }
    if now > challenge.created_at + challenge_lifetime {
        factors::delete_challenge(&transaction, &challenge.id)?;
        transaction.commit()?;
        return Err(AuthError::challenge_expired(&challenge.id));
    }
    let valid = match factor.factor_type {
        FactorType::Totp => totp_code_is_new(&transaction, factor, code, now)?,
        FactorType::Phone => challenge
            .otp_code
            .as_deref()
            .is_some_and(|sent| constant_time::eq(sent.as_bytes(), code.as_bytes())),
    };
    if !valid {
        return Err(match factor.factor_type {
            FactorType::Totp => AuthError::invalid_totp_code(),
            FactorType::Phone => AuthError::invalid_phone_code(),
        });
    }
    factors::mark_challenge_verified(&transaction, &challenge.id, now)?;
    if !factor.verified {
        factors::mark_verified(&transaction, &factor.id, now)?;
    }
    let session_id = &session.id;
    sessions::add_amr_claim(
        &transaction,
        session_id,
        factor.factor_type.amr_method(),
        now,
    )?;
    let parent = sessions::active_refresh_token(&transaction, session_id)?;
    let refresh_token =
        session_tokens::rotate_refresh_token(&transaction, session_id, parent.as_deref(), now)?;
    sessions::set_aal(&transaction, session_id, AAL2, Some(&factor.id), now)?;
    sessions::delete_below_aal2_of_user(&transaction, user_id)?;
    factors::delete_unverified_of_type(&transaction, user_id, factor.factor_type)?;
    let response = session_tokens::respond(&transaction, signer, session_id, refresh_token, now)?;
    transaction.commit()?;
    Ok(response)
}

/// Whether `code` is the TOTP code of a time step after every step this factor accepted before
/// (recording it if so): a code seen over someone's shoulder cannot be replayed.
fn totp_code_is_new(
    transaction: &Transaction<'_>,
    factor: &FactorRecord,
    code: &str,
    now: i64,
) -> Result<bool, AuthError> {
    let secret = factor
        .secret
        .as_deref()
        .expect("a TOTP factor is stored with its secret");
    match totp::matching_step(secret, code, now.div_euclid(1_000_000))? {
        Some(step)
            if factors::last_totp_step(transaction, &factor.id)?.is_none_or(|last| step > last) =>
        {
            factors::record_totp_step(transaction, &factor.id, step)?;
            Ok(true)
        }
        _ => Ok(false),
    }
}
