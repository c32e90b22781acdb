//! The logbook's owners (`logbook_owners`, the migration's `private.logbook_owners`) and the
//! rule the migration's delete policies and owner functions share: the request's account is an
//! owner and signed in with a second factor. It is read from the database inside the request's
//! own transaction, never cached, so `geocache-emulator owner add|remove` on a database a server
//! is serving takes effect with the next request.

use crate::keys::Role;
use crate::rest::role::Requester;
use rusqlite::{Connection, OptionalExtension};

/// An owner as `owner list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub user_id: String,
    pub email: String,
}

pub fn is_owner(connection: &Connection, user_id: &str) -> rusqlite::Result<bool> {
    connection
        .query_row(
            "SELECT 1 FROM logbook_owners WHERE user_id = ?",
            [user_id],
            |_| Ok(()),
        )
        .optional()
        .map(|found| found.is_some())
}

/// Names the account an owner; false if it was one already.
pub fn add(connection: &Connection, user_id: &str) -> rusqlite::Result<bool> {
    connection
        .execute(
            "INSERT INTO logbook_owners (user_id) VALUES (?) ON CONFLICT (user_id) DO NOTHING",
            [user_id],
        )
        .map(|added| added > 0)
}

/// Ends the account's ownership; false if it was no owner.
pub fn remove(connection: &Connection, user_id: &str) -> rusqlite::Result<bool> {
    connection
        .execute("DELETE FROM logbook_owners WHERE user_id = ?", [user_id])
        .map(|removed| removed > 0)
}

/// Every owner, by e-mail address.
pub fn list(connection: &Connection) -> rusqlite::Result<Vec<Owner>> {
    let mut statement = connection.prepare(
        "SELECT auth_users.id, auth_users.email FROM logbook_owners \
         JOIN auth_users ON auth_users.id = logbook_owners.user_id ORDER BY auth_users.email",
    )?;
    let owners = statement
        .query_map([], |row| {
            Ok(Owner {
                user_id: row.get(0)?,
                email: row.get(1)?,
            })
        })?
        .collect();
    owners
}

/// The migration's `private.is_logbook_owner()` together with `auth.jwt() ->> 'aal' = 'aal2'`:
/// what an owner's delete policies require of a signed-in role, and what the owner's functions
/// check before anything else.
pub fn is_owner_at_aal2(connection: &Connection, requester: &Requester) -> rusqlite::Result<bool> {
    match &requester.user_id {
        Some(user_id) if requester.at_aal2() => is_owner(connection, user_id),
        _ => Ok(false),
    }
}

/// Which rows of `geocache_logs` a role's DELETE reaches, as the migration grants and polices
/// it. The policies read no column, so a request reaches every row its filters match or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteAccess {
    /// No DELETE privilege (anon): PostgreSQL refuses the statement (42501).
    Refused,
    /// The privilege, and row-level security: an owner at aal2 reaches the rows, anyone else
    /// none (204, nothing removed).
    OwnersAtAal2,
    /// The service role bypasses row-level security.
    EveryRow,
}

impl DeleteAccess {
    pub fn of(role: Role) -> DeleteAccess {
        match role {
            Role::Anon => DeleteAccess::Refused,
            Role::Authenticated => DeleteAccess::OwnersAtAal2,
            Role::ServiceRole => DeleteAccess::EveryRow,
        }
    }

    /// Whether the request's DELETE reaches the rows its filters match.
    pub fn reaches_rows(
        self,
        connection: &Connection,
        requester: &Requester,
    ) -> rusqlite::Result<bool> {
        match self {
            DeleteAccess::Refused => Ok(false),
            DeleteAccess::OwnersAtAal2 => is_owner_at_aal2(connection, requester),
            DeleteAccess::EveryRow => Ok(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn database() -> Connection {
        let connection = Connection::open_in_memory().unwrap();
        connection
            .pragma_update(None, "foreign_keys", "ON")
            .unwrap();
        crate::rest::schema::migrate(&connection).unwrap();
        crate::auth::migrate(&connection).unwrap();
        for (id, email) in [
            ("u-owner", "owner@example.com"),
            ("u-walker", "walker@example.com"),
        ] {
            connection
                .execute(
                    "INSERT INTO auth_users (id, email, encrypted_password, email_confirmed_at, \
                     raw_app_meta_data, raw_user_meta_data, identity_id, identity_data, created_at, \
                     updated_at) VALUES (?, ?, '', 0, '{}', '{}', ?, '{}', 0, 0)",
                    [id, email, id],
                )
                .unwrap();
        }
        connection
    }

    fn requester(role: Role, user_id: Option<&str>, aal: &str) -> Requester {
        Requester {
            role,
            user_id: user_id.map(str::to_owned),
            aal: Some(aal.to_owned()),
        }
    }

    #[test]
    fn only_an_owner_at_aal2_reaches_rows_as_authenticated() {
        let connection = database();
        assert!(add(&connection, "u-owner").unwrap());
        assert!(!add(&connection, "u-owner").unwrap(), "already an owner");
        let reaches = |requester: &Requester| {
            DeleteAccess::of(requester.role)
                .reaches_rows(&connection, requester)
                .unwrap()
        };
        assert!(reaches(&requester(
            Role::Authenticated,
            Some("u-owner"),
            "aal2"
        )));
        assert!(!reaches(&requester(
            Role::Authenticated,
            Some("u-owner"),
            "aal1"
        )));
        assert!(!reaches(&requester(
            Role::Authenticated,
            Some("u-walker"),
            "aal2"
        )));
        assert!(!reaches(&requester(Role::Authenticated, None, "aal2")));
        assert!(!reaches(&requester(Role::Anon, Some("u-owner"), "aal2")));
        assert!(reaches(&requester(Role::ServiceRole, None, "aal1")));
        assert!(remove(&connection, "u-owner").unwrap());
        assert!(!reaches(&requester(
            Role::Authenticated,
            Some("u-owner"),
            "aal2"
        )));
    }

    #[test]
    fn owners_are_listed_by_email_and_go_with_their_account() {
        let connection = database();
        add(&connection, "u-walker").unwrap();
        add(&connection, "u-owner").unwrap();
        let emails: Vec<String> = list(&connection)
            .unwrap()
            .into_iter()
            .map(|owner| owner.email)
            .collect();
        assert_eq!(emails, ["owner@example.com", "walker@example.com"]);
        connection
            .execute("DELETE FROM auth_users WHERE id = 'u-owner'", [])
            .unwrap();
        assert!(!is_owner(&connection, "u-owner").unwrap());
    }
}
