//! The role a channel's changes are checked against, from its `access_token`.
//!
//! - No token: the socket's API key's role (publishable → anon, secret → service_role, a legacy
//!   key → its role), as the gateway decided it.
//! - The socket's own `sb_` key (what supabase-js sends without a session): anon. A new-format key
//!   is not a JWT and carries no claims.
//! - A JWT (a user's session, or a legacy key): verified with the project's secret; it must name
//!   a `role` and an `exp` still to come, as Realtime requires, and its role applies until then.
//! - Anything else: refused with Realtime's `InvalidJWTToken` reason.

use crate::keys::api_keys::NEW_FORMAT_PREFIX;
use crate::keys::{JwtError, Keys, Role};

/// Who a channel acts for: its role and, for a user's token, the user (`sub`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelAccess {
    pub role: Role,
    pub subject: Option<String>,
    /// When the token expires (its `exp`, Unix seconds): the channel is closed then unless a
    /// fresh token has arrived. `None` for an API key's access.
    pub expires_at: Option<i64>,
}

impl ChannelAccess {
    fn role(role: Role) -> ChannelAccess {
        ChannelAccess {
            role,
            subject: None,
            expires_at: None,
        }
    }
}

/// Refused tokens, worded as Realtime's join errors (`{reason: "InvalidJWTToken: ..."}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessError(pub String);

pub fn channel_role(
    keys: &Keys,
    api_key: &str,
    key_role: Role,
    token: Option<&str>,
    now: i64,
) -> Result<ChannelAccess, AccessError> {
    let Some(token) = token else {
        return Ok(ChannelAccess::role(key_role));
    };
    if token.starts_with(NEW_FORMAT_PREFIX) {
        return if token == api_key {
            Ok(ChannelAccess::role(Role::Anon))
        } else {
            Err(invalid("an API key other than the connection's"))
        };
    }
    let claims = keys
        .verify(token, now)
        .map_err(|error| invalid(reason(&error)))?;
    if !claims.contains_key("role") || !claims.contains_key("exp") {
        return Err(invalid("Fields `role` and `exp` are required in JWT"));
    }
    let role = Keys::role_of(&claims).map_err(|error| invalid(reason(&error)))?;
    let subject = claims
        .get("sub")
        .and_then(|sub| sub.as_str())
        .map(str::to_owned);
    let expires_at = claims.get("exp").and_then(|exp| {
        exp.as_i64()
            .or_else(|| exp.as_f64().map(|seconds| seconds as i64))
    });
    // No clock skew here: a channel is closed the moment its token expires, so it cannot join
    // with one that has.
    if expires_at.is_some_and(|exp| exp <= now) {
        return Err(invalid(reason(&JwtError::Expired)));
    }
    Ok(ChannelAccess {
        role,
        subject,
        expires_at,
    })
}

fn invalid(reason: &str) -> AccessError {
    AccessError(format!("InvalidJWTToken: {reason}"))
}

fn reason(error: &JwtError) -> &'static str {
    match error {
        JwtError::Expired => "Token has expired",
        JwtError::NotYetValid | JwtError::IssuedInFuture => "Token is not yet valid",
        JwtError::BadSignature => "Signature error",
        JwtError::UnknownRole(_) | JwtError::NoRole => "The token's role does not exist",
        JwtError::Empty
        | JwtError::UnexpectedParts(_)
        | JwtError::Undecodable
        | JwtError::BadAlgorithm
        | JwtError::ClaimsNotAnObject
        | JwtError::ClaimNotNumber(_)
        | JwtError::AudienceNotStrings
        | JwtError::WrongAudience => "Invalid token",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::DEFAULT_JWT_SECRET;
    use serde_json::json;

    const NOW: i64 = 1_700_000_000;

    #[test]
    fn tokens_decide_the_role() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let publishable = keys.publishable_key().to_owned();
        let role = |key: &str, key_role: Role, token: Option<&str>| {
            channel_role(&keys, key, key_role, token, NOW).map(|access| access.role)
        };
        assert_eq!(role(&publishable, Role::Anon, None), Ok(Role::Anon));
        assert_eq!(
            role(keys.secret_key(), Role::ServiceRole, None),
            Ok(Role::ServiceRole)
        );
        assert_eq!(
            role(
                keys.secret_key(),
                Role::ServiceRole,
                Some(keys.secret_key())
            ),
            Ok(Role::Anon)
        );
        let user = keys.sign(&json!({"role": "authenticated", "sub": "u", "exp": NOW + 60}));
        assert_eq!(
            role(&publishable, Role::Anon, Some(&user)),
            Ok(Role::Authenticated)
        );
        assert_eq!(
            role(&publishable, Role::Anon, Some(keys.anon_key())),
            Ok(Role::Anon)
        );
    }

    #[test]
    fn bad_tokens_are_refused_in_realtime_words() {
        let keys = Keys::new(DEFAULT_JWT_SECRET);
        let publishable = keys.publishable_key().to_owned();
        let refuse = |token: &str| {
            channel_role(&keys, &publishable, Role::Anon, Some(token), NOW)
                .unwrap_err()
                .0
        };
        let expired = keys.sign(&json!({"role": "authenticated", "exp": NOW - 120}));
        assert_eq!(refuse(&expired), "InvalidJWTToken: Token has expired");
        // Within PostgREST's 30 s of skew, but expired all the same.
        let just_expired = keys.sign(&json!({"role": "authenticated", "exp": NOW}));
        assert_eq!(refuse(&just_expired), "InvalidJWTToken: Token has expired");
        let no_exp = keys.sign(&json!({"role": "authenticated"}));
        assert_eq!(
            refuse(&no_exp),
            "InvalidJWTToken: Fields `role` and `exp` are required in JWT"
        );
        assert_eq!(refuse("garbage"), "InvalidJWTToken: Invalid token");
        assert!(refuse(keys.secret_key()).starts_with("InvalidJWTToken: "));
    }
}
