//! Issuing sessions: the token response GoTrue sends after sign-up, sign-in, refresh and MFA
//! verification (tokens/service.go `IssueRefreshToken`, `GenerateAccessToken`).

use crate::auth::error::AuthError;
use crate::auth::json::{self, TokenResponse};
use crate::auth::jwt::{AccessClaims, AmrEntry};
use crate::auth::settings::AuthSettings;
use crate::auth::store::sessions::{self, AAL1, AAL2};
use crate::auth::store::{factors, users};
use crate::keys::Keys;
use crate::random;
use rusqlite::Connection;

/// What token issuing needs from the auth server's state.
#[derive(Clone, Copy)]
pub struct Signer<'a> {
    pub keys: &'a Keys,
    pub settings: &'a AuthSettings,
}

/// The AMR methods of second factors; any of them makes a session AAL2.
const MFA_METHODS: [&str; 3] = ["totp", "mfa/phone", "mfa/webauthn"];

/// Signs the user in: a new session authenticated by `method`, its first refresh token and the
/// sign-in time.
pub fn start_session(
    connection: &Connection,
    signer: Signer<'_>,
    user_id: &str,
    method: &str,
    now: i64,
) -> Result<TokenResponse, AuthError> {
    let session = sessions::create(connection, &random::uuid()?.to_string(), user_id, now)?;
    sessions::add_amr_claim(connection, &session.id, method, now)?;
    users::record_sign_in(connection, user_id, now)?;
    let refresh_token = rotate_refresh_token(connection, &session.id, None, now)?;
    respond(connection, signer, &session.id, refresh_token, now)
}

/// Revokes the session's current refresh token(s) and issues a child of `parent`.
pub fn rotate_refresh_token(
    connection: &Connection,
    session_id: &str,
    parent: Option<&str>,
    now: i64,
) -> Result<String, AuthError> {
    sessions::revoke_refresh_tokens(connection, session_id, now)?;
    let token = random::refresh_token()?;
    sessions::insert_refresh_token(connection, &token, session_id, parent, now)?;
    Ok(token)
}

/// The session's level: AAL2 once any second factor was verified in it.
pub fn assurance_level(claims: &[sessions::AmrClaim]) -> &'static str {
    if claims
        .iter()
        .any(|claim| MFA_METHODS.contains(&claim.method.as_str()))
    {
        AAL2
    } else {
        AAL1
    }
}

/// A fresh access token for the session, with `refresh_token`, and the user as it is now.
pub fn respond(
    connection: &Connection,
    signer: Signer<'_>,
    session_id: &str,
    refresh_token: String,
    now: i64,
) -> Result<TokenResponse, AuthError> {
    let session = sessions::find(connection, session_id)?
        .ok_or_else(|| AuthError::unexpected(format!("session {session_id} vanished")))?;
    let user = users::find_by_id(connection, &session.user_id)?
        .ok_or_else(|| AuthError::unexpected(format!("user {} vanished", session.user_id)))?;
    let factors = factors::list_of_user(connection, &user.id)?;
    let claims = sessions::amr_claims(connection, session_id)?;
    let now_seconds = now.div_euclid(1_000_000);
    let expires_at = now_seconds + signer.settings.jwt_expiry;
    let issuer = signer.settings.issuer();
    let access_token = signer.keys.sign(&AccessClaims {
        iss: &issuer,
        sub: &user.id,
        aud: "authenticated",
        exp: expires_at,
        iat: now_seconds,
        email: &user.email,
        phone: "",
        app_metadata: &user.app_metadata,
        user_metadata: &user.user_metadata,
        role: "authenticated",
        aal: assurance_level(&claims),
        amr: claims
            .iter()
            .map(|claim| AmrEntry {
                method: claim.method.clone(),
                timestamp: claim.updated_at.div_euclid(1_000_000),
            })
            .collect(),
        session_id: &session.id,
        is_anonymous: false,
    });
    Ok(TokenResponse {
        access_token,
        token_type: "bearer",
        expires_in: expires_at - now_seconds,
        expires_at,
        refresh_token,
        user: json::user(&user, &factors),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::store::sessions::AmrClaim;

    fn claim(method: &str) -> AmrClaim {
        AmrClaim {
            method: method.to_owned(),
            updated_at: 0,
        }
    }

    #[test]
    fn any_second_factor_makes_aal2() {
        assert_eq!(assurance_level(&[claim("password")]), AAL1);
        assert_eq!(assurance_level(&[claim("totp"), claim("password")]), AAL2);
        assert_eq!(assurance_level(&[claim("mfa/phone")]), AAL2);
        assert_eq!(assurance_level(&[]), AAL1);
    }
}
