//! The database roles a request can run as, by the names PostgreSQL knows them.

use crate::error::Anonymity;

/// The database roles a request can run as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Anon,
    Authenticated,
    ServiceRole,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Anon => "anon",
            Role::Authenticated => "authenticated",
            Role::ServiceRole => "service_role",
        }
    }

    pub(super) fn from_name(name: &str) -> Option<Role> {
        [Role::Anon, Role::Authenticated, Role::ServiceRole]
            .into_iter()
            .find(|role| role.name() == name)
    }

    /// The one check for the service role; `refused` builds the caller's error for any other
    /// role (a database privilege error, or the emulator endpoints' key error).
    pub fn require_service_role<E>(self, refused: impl FnOnce(Role) -> E) -> Result<(), E> {
        if self == Role::ServiceRole {
            Ok(())
        } else {
            Err(refused(self))
        }
    }

    /// PostgREST's "authed": any role other than the configured anonymous role.
    pub fn anonymity(self) -> Anonymity {
        match self {
            Role::Anon => Anonymity::Anonymous,
            Role::Authenticated | Role::ServiceRole => Anonymity::Identified,
        }
    }
}
