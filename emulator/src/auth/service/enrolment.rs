//! Enrolling and unenrolling MFA factors, and finding a caller's factor (GoTrue api/mfa.go
//! `EnrollFactor`, `UnenrollFactor`, `loadFactor`), apart from HTTP.

use crate::auth::error::AuthError;
use crate::auth::settings::MAX_FACTORS;
use crate::auth::store::factors::{self, FactorRecord, FactorType};
use crate::auth::store::sessions::{self, SessionRecord};
use crate::auth::store::StoreError;
use rusqlite::Connection;

/// Stores the new, unverified `factor` if the user has room for it. `expired_before`: unverified
/// factors created before this time are abandoned enrolments and go first.
pub fn enroll_factor(
    connection: &mut Connection,
    factor: &FactorRecord,
    session: &SessionRecord,
    expired_before: i64,
) -> Result<(), AuthError> {
    let transaction = connection.transaction()?;
    if factor.factor_type == FactorType::Phone {
        replace_unverified_phone_factors(&transaction, factor)?;
    }
    check_room_for_factor(&transaction, factor, session, expired_before)?;
    factors::insert(&transaction, factor)?;
    transaction.commit()?;
    Ok(())
}

/// A phone number may have one verified factor; unverified attempts for it are replaced.
fn replace_unverified_phone_factors(
    connection: &Connection,
    new: &FactorRecord,
) -> Result<(), AuthError> {
    for existing in factors::list_of_user(connection, &new.user_id)? {
        if existing.factor_type == FactorType::Phone && existing.phone == new.phone {
            if existing.verified {
                return Err(AuthError::verified_phone_factor_exists());
            }
            factors::delete(connection, &existing.id)?;
        }
    }
    Ok(())
}

/// GoTrue `validateFactors`: expired enrolments go first; then the name must be new, the user
/// must have room, and a user with a verified factor must be at AAL2 to add another.
fn check_room_for_factor(
    connection: &Connection,
    new: &FactorRecord,
    session: &SessionRecord,
    expired_before: i64,
) -> Result<(), AuthError> {
    factors::delete_expired(connection, expired_before)?;
    let existing = factors::list_of_user(connection, &new.user_id)?;
    if existing
        .iter()
        .any(|factor| factor.friendly_name == new.friendly_name)
    {
        return Err(AuthError::factor_name_conflict(&new.friendly_name));
    }
    let verified = existing.iter().filter(|factor| factor.verified).count();
    if existing.len() >= MAX_FACTORS || verified >= MAX_FACTORS {
        return Err(AuthError::too_many_factors());
    }
    if verified > 0 && !session.is_aal2() {
        return Err(AuthError::aal2_required_to_enroll());
    }
    Ok(())
}

/// Deletes `factor` and takes back what its verification gave the user's sessions.
pub fn unenroll_factor(
    connection: &mut Connection,
    factor: &FactorRecord,
    now: i64,
) -> Result<(), StoreError> {
    let transaction = connection.transaction()?;
    factors::delete(&transaction, &factor.id)?;
    sessions::downgrade_for_factor(
        &transaction,
        &factor.id,
        factor.factor_type.amr_method(),
        now,
    )?;
    transaction.commit()?;
    Ok(())
}

/// The user's factor `id`, unless it is an enrolment abandoned for longer than `lifetime`
/// (microseconds): that one is deleted, not left waiting to be finished later by whoever gets
/// hold of the session.
pub fn find_live_factor(
    connection: &Connection,
    id: &str,
    user_id: &str,
    lifetime: i64,
    now: i64,
) -> Result<Option<FactorRecord>, StoreError> {
    match factors::find_of_user(connection, id, user_id)? {
        Some(factor) if factor.expired(lifetime, now) => {
            factors::delete(connection, &factor.id)?;
            Ok(None)
        }
        factor => Ok(factor),
    }
}
