//! The emulator's stand-in for row-level security policies on `storage.objects`.
//!
//! Hosted Storage has no default policies: without one, `anon` and `authenticated` can neither
//! read (list, download, sign) nor write objects, and only a public bucket's public URL serves
//! anyone. The service role bypasses them all. A policy here grants one operation on one bucket
//! (or every bucket, `*`) to one role, as a policy `using (bucket_id = '...')` would.

use crate::keys::Role;
use serde::Deserialize;

/// The SQL commands a policy names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    /// Listing, downloading, signing URLs, and the source of a copy.
    Select,
    /// New objects (uploads, copies' destinations, signed upload URLs).
    Insert,
    /// Replacing an object (upsert, update) and moving it.
    Update,
    Delete,
}

/// The roles a policy can name: the service role needs none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyRole {
    Anon,
    Authenticated,
}

/// One grant.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// A bucket id, or `*` for every bucket.
    pub bucket: String,
    pub operation: Operation,
    pub role: PolicyRole,
}

impl Policy {
    /// Parses `BUCKET:OPERATION:ROLE`, the `--storage-policy` flag's form.
    pub fn parse(text: &str) -> Result<Policy, String> {
        let (rest, role) = text
            .rsplit_once(':')
            .ok_or_else(|| format!("expected BUCKET:OPERATION:ROLE, got {text:?}"))?;
        let (bucket, operation) = rest
            .rsplit_once(':')
            .ok_or_else(|| format!("expected BUCKET:OPERATION:ROLE, got {text:?}"))?;
        let operation = match operation {
            "select" => Operation::Select,
            "insert" => Operation::Insert,
            "update" => Operation::Update,
            "delete" => Operation::Delete,
            other => {
                return Err(format!(
                    "unknown operation {other:?}: select, insert, update or delete"
                ))
            }
        };
        let role = match role {
            "anon" => PolicyRole::Anon,
            "authenticated" => PolicyRole::Authenticated,
            other => return Err(format!("unknown role {other:?}: anon or authenticated")),
        };
        if bucket.is_empty() {
            return Err("the bucket is empty (use * for every bucket)".to_owned());
        }
        Ok(Policy {
            bucket: bucket.to_owned(),
            operation,
            role,
        })
    }
}

/// Every policy in force.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policies(Vec<Policy>);

impl Policies {
    pub fn new(policies: Vec<Policy>) -> Policies {
        Policies(policies)
    }

    /// Whether `role` may do every one of `operations` on objects of `bucket`.
    pub fn allows_all(&self, role: Role, bucket: &str, operations: &[Operation]) -> bool {
        operations
            .iter()
            .all(|operation| self.allows(role, bucket, *operation))
    }

    /// Whether `role` may do `operation` on objects of `bucket`.
    pub fn allows(&self, role: Role, bucket: &str, operation: Operation) -> bool {
        let wanted = match role {
            Role::ServiceRole => return true,
            Role::Anon => PolicyRole::Anon,
            Role::Authenticated => PolicyRole::Authenticated,
        };
        self.0.iter().any(|policy| {
            policy.role == wanted
                && policy.operation == operation
                && (policy.bucket == "*" || policy.bucket == bucket)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_allowed_by_default_but_to_the_service_role() {
        let none = Policies::default();
        assert!(!none.allows(Role::Anon, "b", Operation::Select));
        assert!(!none.allows(Role::Authenticated, "b", Operation::Insert));
        assert!(none.allows(Role::ServiceRole, "b", Operation::Delete));
    }

    #[test]
    fn a_policy_grants_one_operation_on_one_bucket_to_one_role() {
        let policies = Policies::new(vec![
            Policy::parse("photos:select:anon").unwrap(),
            Policy::parse("*:insert:authenticated").unwrap(),
        ]);
        assert!(policies.allows(Role::Anon, "photos", Operation::Select));
        assert!(!policies.allows(Role::Anon, "other", Operation::Select));
        assert!(!policies.allows(Role::Authenticated, "photos", Operation::Select));
        assert!(!policies.allows(Role::Anon, "photos", Operation::Insert));
        assert!(policies.allows(Role::Authenticated, "any", Operation::Insert));
    }

    #[test]
    fn the_flag_form_is_checked() {
        assert_eq!(
            Policy::parse("a:b:select:anon").unwrap().bucket,
            "a:b",
            "bucket names may hold colons"
        );
        assert!(Policy::parse("photos:read:anon").is_err());
        assert!(Policy::parse("photos:select:service_role").is_err());
        assert!(Policy::parse(":select:anon").is_err());
        assert!(Policy::parse("photos").is_err());
    }
}
