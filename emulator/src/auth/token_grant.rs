//! `POST /auth/v1/token?grant_type=password|refresh_token` (GoTrue api/token.go,
//! api/token_refresh.go, tokens/service.go).
//!
//! Refresh tokens rotate: each use revokes the token and issues its child. Using a revoked token
//! again is refused with `refresh_token_already_used` and revokes every token of its session
//! (GoTrue's reuse detection with rotation on; the emulator has no reuse interval).

use crate::auth::body::{self, text};
use crate::auth::error::AuthError;
use crate::auth::json::TokenResponse;
use crate::auth::password;
use crate::auth::rate_limit::Action;
use crate::auth::session_tokens::{self, Signer};
use crate::auth::store::{sessions, users};
use crate::client_address::ClientAddress;
use crate::error::ApiError;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::Json;
use serde::Deserialize;

pub async fn token(
    State(state): State<AppState>,
    client: ClientAddress,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Json<TokenResponse>, ApiError> {
    let grant_type = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(key, _)| key == "grant_type")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default();
    // Counted before the grant is processed, failed attempts included, as GoTrue's limiters.
    let limit = match grant_type.as_str() {
        "password" => Some((Action::SignInSignUp, state.auth.sign_in_sign_ups_limit)),
        "refresh_token" => Some((Action::TokenRefresh, state.auth.token_refresh_limit)),
        _ => None,
    };
    if let Some((action, limit)) = limit {
        state
            .limiter
            .check(&client.key(), action, limit, state.clock.now_micros())?;
    }
    let response = match grant_type.as_str() {
        "password" => password_grant(&state, &body).await?,
        "refresh_token" => refresh_token_grant(&state, &body).await?,
        _ => return Err(AuthError::unsupported_grant_type().into()),
    };
    Ok(Json(response))
}

#[derive(Deserialize)]
struct PasswordParams {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
}

async fn password_grant(state: &AppState, body: &[u8]) -> Result<TokenResponse, ApiError> {
    let params: PasswordParams = body::parse(body)?;
    let (email, phone) = (text(params.email), text(params.phone));
    if !email.is_empty() && !phone.is_empty() {
        return Err(AuthError::email_and_phone_on_login().into());
    }
    if email.is_empty() {
        // No user of the emulator has a phone number to sign in with.
        return Err(if phone.is_empty() {
            AuthError::missing_email_or_phone()
        } else {
            AuthError::invalid_credentials()
        }
        .into());
    }
    let lookup = email.to_lowercase();
    let user = state
        .db
        .call(move |connection| users::find_by_email(connection, &lookup))
        .await?;
    let Some(user) = user else {
        // An unknown address costs the same bcrypt work as a wrong password, so the answer's
        // timing does not tell which accounts exist.
        // Its result, even a failure, is not the answer.
        password::hash(text(params.password), state.auth.password_hash_cost)
            .await
            .ok();
        return Err(AuthError::invalid_credentials().into());
    };
    let matches = password::verify(text(params.password), user.encrypted_password.clone()).await?;
    if !matches {
        return Err(AuthError::invalid_credentials().into());
    }
    let now = state.clock.now_micros();
    let (keys, settings) = (state.keys.clone(), state.auth.clone());
    state
        .db
        .call(move |connection| {
            let transaction = connection.transaction()?;
            let signer = Signer {
                keys: &keys,
                settings: &settings,
            };
            let response =
                session_tokens::start_session(&transaction, signer, &user.id, "password", now)?;
            transaction.commit()?;
            Ok(response)
        })
        .await
}

#[derive(Deserialize)]
struct RefreshParams {
    refresh_token: Option<String>,
}

/// GoTrue's legacy refresh tokens are 12 lower-case letters and digits; anything else is not a
/// token this server could have issued.
fn has_refresh_token_shape(token: &str) -> bool {
    token.len() == 12
        && token
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit())
}

async fn refresh_token_grant(state: &AppState, body: &[u8]) -> Result<TokenResponse, ApiError> {
    let params: RefreshParams = body::parse(body)?;
    let presented = text(params.refresh_token);
    if !has_refresh_token_shape(&presented) {
        return Err(AuthError::refresh_token_invalid().into());
    }
    let now = state.clock.now_micros();
    let (keys, settings) = (state.keys.clone(), state.auth.clone());
    state
        .db
        .call(move |connection| {
            let transaction = connection.transaction()?;
            let token = sessions::find_refresh_token(&transaction, &presented)?
                .ok_or_else(AuthError::refresh_token_not_found)?;
            if token.revoked {
                sessions::revoke_refresh_tokens(&transaction, &token.session_id, now)?;
                transaction.commit()?;
                return Err(AuthError::refresh_token_already_used().into());
            }
            let child = session_tokens::rotate_refresh_token(
                &transaction,
                &token.session_id,
                Some(&token.token),
                now,
            )?;
            sessions::touch(&transaction, &token.session_id, now)?;
            let signer = Signer {
                keys: &keys,
                settings: &settings,
            };
            let response =
                session_tokens::respond(&transaction, signer, &token.session_id, child, now)?;
            transaction.commit()?;
            Ok(response)
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_tokens_must_have_the_issued_shape() {
        assert!(has_refresh_token_shape("abc123def456"));
        for token in [
            "",
            "abc123def45",
            "abc123def4567",
            "ABC123DEF456",
            "abc123def45!",
        ] {
            assert!(!has_refresh_token_shape(token), "{token}");
        }
    }
}
