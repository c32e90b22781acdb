//! What the logbook's triggers read as the request: its time (PostgreSQL's `now()`, the
//! transaction's start) and its account (`auth.uid()`). A writer puts one row into
//! `write_context` inside its transaction and takes it out again before committing, so no other
//! connection ever sees it; SQLite runs one write transaction at a time, so no other writer's
//! triggers can read it either. A writer that sets none (the `owner` command, `sqlite3` by hand)
//! leaves the triggers the wall clock and no account, as the SQL editor leaves PostgreSQL's.

use rusqlite::{params, Connection, Transaction};

/// The request a write transaction runs for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteContext {
    /// Microseconds since the Unix epoch: the time every row of the transaction is stamped with.
    pub now: i64,
    /// The account of the request's token (its `sub`), if any.
    pub user_id: Option<String>,
}

impl WriteContext {
    /// Runs `work` in one transaction under this context, and commits it if `work` succeeds.
    pub fn run<T, E>(
        &self,
        connection: &mut Connection,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<rusqlite::Error>,
    {
        let transaction = connection.transaction()?;
        transaction.execute(
            "INSERT INTO write_context (one_row, now, user_id) VALUES (1, ?, ?) \
             ON CONFLICT (one_row) DO UPDATE SET now = excluded.now, user_id = excluded.user_id",
            params![self.now, self.user_id],
        )?;
        let result = work(&transaction)?;
        transaction.execute("DELETE FROM write_context", [])?;
        transaction.commit()?;
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn database() -> Connection {
        let connection = Connection::open_in_memory().unwrap();
        crate::rest::schema::migrate(&connection).unwrap();
        crate::auth::migrate(&connection).unwrap();
        connection
    }

    #[test]
    fn the_context_is_gone_after_the_commit_and_after_a_failure() {
        let mut connection = database();
        let context = WriteContext {
            now: 1_700_000_000_000_000,
            user_id: None,
        };
        let seen: i64 = context
            .run(&mut connection, |transaction| {
                transaction.query_row("SELECT now FROM write_context", [], |row| row.get(0))
            })
            .unwrap();
        assert_eq!(seen, 1_700_000_000_000_000);
        let failed: Result<(), rusqlite::Error> =
            context.run(&mut connection, |_| Err(rusqlite::Error::InvalidQuery));
        assert!(failed.is_err());
        let left: i64 = connection
            .query_row("SELECT count(*) FROM write_context", [], |row| row.get(0))
            .unwrap();
        assert_eq!(left, 0);
    }
}
