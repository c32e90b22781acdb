//! The database roles a request can run as, by the names PostgreSQL knows them.

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

/// Whether a request runs as the anonymous role (PostgREST's "authed" flag); decides 401 versus
/// 403 for privilege errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anonymity {
    /// The anonymous role (`anon`): PostgREST answers 401.
    Anonymous,
    /// Any other role (`authenticated`, `service_role`): PostgREST answers 403.
    Identified,
}
