//! An MFA challenge's transaction: the challenge and, for a phone factor, the text message that
//! carries its code.

use crate::auth::store::factors::{self, ChallengeRecord};
use crate::auth::store::sent_sms::{self, SmsRecord};
use crate::auth::store::StoreError;
use rusqlite::Connection;

/// Stores `challenge` and "sends" `sms`, together or not at all.
pub fn issue_challenge(
    connection: &mut Connection,
    challenge: &ChallengeRecord,
    sms: Option<&SmsRecord>,
) -> Result<(), StoreError> {
    let transaction = connection.transaction()?;
    factors::insert_challenge(&transaction, challenge)?;
    if let Some(sms) = sms {
        sent_sms::insert(&transaction, sms)?;
    }
    transaction.commit()?;
    Ok(())
}
