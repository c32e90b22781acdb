//! Who may read `public.geocache_logs`, as the migration sets the table up: the SELECT privilege
//! (granted to anon, authenticated and service_role) and row-level security's policy for SELECT
//! (`to anon, authenticated using (true)`), which service_role bypasses. REST reads and the
//! Realtime changes of INSERTs and UPDATEs ask the same [`ReadAccess::readable`], so a role is
//! never shown live a row its reads would not return.
//!
//! The policy reads no column (`using (true)`), so what a role may read is the same for every row
//! and is decided by the role alone.

use crate::keys::Role;

/// What a role's read of the table returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readable {
    /// No SELECT privilege: PostgreSQL refuses the read (42501).
    Refused,
    /// The privilege, but no SELECT policy for the role: row-level security hides every row.
    NoRows,
    /// Every row.
    EveryRow,
}

/// The table's SELECT grant and SELECT policy, as role sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadAccess {
    granted: RoleSet,
    policy: RoleSet,
}

impl Default for ReadAccess {
    /// The migration's grant and policy.
    fn default() -> Self {
        ReadAccess {
            granted: RoleSet::of(&[Role::Anon, Role::Authenticated, Role::ServiceRole]),
            policy: RoleSet::of(&[Role::Anon, Role::Authenticated]),
        }
    }
}

impl ReadAccess {
    /// `revoke select on public.geocache_logs from <role>`.
    pub fn revoke_select(self, role: Role) -> Self {
        ReadAccess {
            granted: self.granted.without(role),
            ..self
        }
    }

    /// The SELECT policy without `role` among its roles (`to ...`).
    pub fn without_select_policy_for(self, role: Role) -> Self {
        ReadAccess {
            policy: self.policy.without(role),
            ..self
        }
    }

    /// What `role` may read: nothing without the privilege; with it, every row when row-level
    /// security lets it through (a policy for the role, or service_role's BYPASSRLS), else none.
    pub fn readable(self, role: Role) -> Readable {
        if !self.granted.contains(role) {
            Readable::Refused
        } else if role == Role::ServiceRole || self.policy.contains(role) {
            Readable::EveryRow
        } else {
            Readable::NoRows
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RoleSet(u8);

impl RoleSet {
    fn of(roles: &[Role]) -> Self {
        RoleSet(roles.iter().fold(0, |bits, role| bits | bit(*role)))
    }

    fn contains(self, role: Role) -> bool {
        self.0 & bit(role) != 0
    }

    fn without(self, role: Role) -> Self {
        RoleSet(self.0 & !bit(role))
    }
}

fn bit(role: Role) -> u8 {
    match role {
        Role::Anon => 1,
        Role::Authenticated => 2,
        Role::ServiceRole => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROLES: [Role; 3] = [Role::Anon, Role::Authenticated, Role::ServiceRole];

    #[test]
    fn the_migration_lets_every_role_read_every_row() {
        let access = ReadAccess::default();
        assert_eq!(
            ROLES.map(|role| access.readable(role)),
            [Readable::EveryRow; 3]
        );
    }

    #[test]
    fn without_the_privilege_a_read_is_refused_and_without_a_policy_it_sees_no_rows() {
        let access = ReadAccess::default().revoke_select(Role::Anon);
        assert_eq!(
            ROLES.map(|role| access.readable(role)),
            [Readable::Refused, Readable::EveryRow, Readable::EveryRow]
        );
        let access = ReadAccess::default()
            .without_select_policy_for(Role::Authenticated)
            .without_select_policy_for(Role::ServiceRole);
        assert_eq!(
            ROLES.map(|role| access.readable(role)),
            [Readable::EveryRow, Readable::NoRows, Readable::EveryRow],
            "service_role bypasses row-level security"
        );
        let access = ReadAccess::default().revoke_select(Role::ServiceRole);
        assert_eq!(access.readable(Role::ServiceRole), Readable::Refused);
    }
}
