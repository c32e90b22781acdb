//! `POST /auth/v1/token?grant_type=password|refresh_token` (GoTrue api/token.go,
//! api/token_refresh.go, tokens/service.go).
//! The grants' transactions are in [`crate::auth::service`] (`sign_in`, `refresh`).

use crate::auth::body::{self, text};
use crate::auth::error::AuthError;
use crate::auth::json::TokenResponse;
use crate::auth::password;
use crate::auth::rate_limit::Action;
use crate::auth::service::{refresh, sign_in};
use crate::auth::store::users;
use crate::auth::with_signer::with_signer;
use crate::auth::AuthState;
use crate::http::client_address::ClientAddress;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::Json;
use serde::Deserialize;

pub async fn token(
    State(state): State<AuthState>,
    client: ClientAddress,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Json<TokenResponse>, AuthError> {
    let grant_type = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(key, _)| key == "grant_type")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default();
    // Counted before the grant is processed, failed attempts included, as GoTrue's limiters.
    let limit = match grant_type.as_str() {
        "password" => Some((Action::SignInSignUp, state.settings.sign_in_sign_ups_limit)),
        "refresh_token" => Some((Action::TokenRefresh, state.settings.token_refresh_limit)),
        _ => None,
    };
    if let Some((action, limit)) = limit {
        state
            .rate_limit
            .check(&client.key(), action, limit, state.clock.now_micros())?;
    }
    let response = match grant_type.as_str() {
        "password" => password_grant(&state, &body).await?,
        "refresh_token" => refresh_token_grant(&state, &body).await?,
        _ => return Err(AuthError::unsupported_grant_type()),
    };
    Ok(Json(response))
}

#[derive(Deserialize)]
struct PasswordParams {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
}

async fn password_grant(state: &AuthState, body: &[u8]) -> Result<TokenResponse, AuthError> {
    let params: PasswordParams = body::parse(body)?;
    let (email, phone) = (text(params.email), text(params.phone));
    if !email.is_empty() && !phone.is_empty() {
        return Err(AuthError::email_and_phone_on_login());
    }
    if email.is_empty() {
        // No user of the emulator has a phone number to sign in with.
        return Err(if phone.is_empty() {
            AuthError::missing_email_or_phone()
        } else {
            AuthError::invalid_credentials()
        });
    }
    let lookup = email.to_lowercase();
    let user = state
        .db
        .call(move |connection| users::find_by_email(connection, &lookup).map_err(AuthError::from))
        .await?;
    let Some(user) = user else {
        // An unknown address costs the same bcrypt work as a wrong password, so the answer's
        // timing does not tell which accounts exist.
        // Its result, even a failure, is not the answer.
        password::hash(text(params.password), state.settings.password_hash_cost)
            .await
            .ok();
        return Err(AuthError::invalid_credentials());
    };
    let matches = password::verify(text(params.password), user.encrypted_password.clone()).await?;
    if !matches {
        return Err(AuthError::invalid_credentials());
    }
    let now = state.clock.now_micros();
    with_signer(state, move |connection, signer| {
        sign_in::start_password_session(connection, signer, &user.id, now)
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

async fn refresh_token_grant(state: &AuthState, body: &[u8]) -> Result<TokenResponse, AuthError> {
    let params: RefreshParams = body::parse(body)?;
    let presented = text(params.refresh_token);
    if !has_refresh_token_shape(&presented) {
        return Err(AuthError::refresh_token_invalid());
    }
    let now = state.clock.now_micros();
    with_signer(state, move |connection, signer| {
        refresh::refresh_session(connection, signer, &presented, now)
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
