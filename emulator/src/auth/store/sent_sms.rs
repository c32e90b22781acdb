//! `emulator_sms_outbox`: the text messages the emulator "sent" (it has no SMS provider).

use crate::auth::store::StoreError;
use rusqlite::{params, Connection};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmsRecord {
    /// E.164 with the leading `+`.
    pub phone: String,
    pub body: String,
    pub sent_at: i64,
}

pub fn insert(connection: &Connection, sms: &SmsRecord) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO emulator_sms_outbox (phone, body, sent_at) VALUES (?, ?, ?)",
        params![sms.phone, sms.body, sms.sent_at],
    )?;
    Ok(())
}

/// Every message, oldest first.
pub fn list(connection: &Connection) -> Result<Vec<SmsRecord>, StoreError> {
    let mut statement =
        connection.prepare("SELECT phone, body, sent_at FROM emulator_sms_outbox ORDER BY id")?;
    let messages = statement
        .query_map([], |row| {
            Ok(SmsRecord {
                phone: row.get(0)?,
                body: row.get(1)?,
                sent_at: row.get(2)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(messages)
}
