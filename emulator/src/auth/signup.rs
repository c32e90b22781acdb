//! `POST /auth/v1/signup`: email and password sign-up. The emulator confirms email addresses
//! automatically (GoTrue with `MAILER_AUTOCONFIRM`), so sign-up answers with a session.

use crate::auth::account;
use crate::auth::body::{self, text};
use crate::auth::error::AuthError;
use crate::auth::json::TokenResponse;
use crate::auth::rate_limit::Action;
use crate::auth::service::sign_up;
use crate::auth::store::users;
use crate::auth::validation;
use crate::auth::with_signer::with_signer;
use crate::auth::AuthState;
use crate::http::client_address::ClientAddress;
use axum::body::Bytes;
use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Deserialize)]
struct SignupParams {
    email: Option<String>,
    phone: Option<String>,
    password: Option<String>,
    data: Option<Map<String, Value>>,
}

pub async fn signup(
    State(state): State<AuthState>,
    client: ClientAddress,
    body: Bytes,
) -> Result<Json<TokenResponse>, AuthError> {
    // Counted before anything is read, as GoTrue's limiter runs before the handler.
    state.rate_limit.check(
        &client.key(),
        Action::SignInSignUp,
        state.settings.sign_in_sign_ups_limit,
        state.clock.now_micros(),
    )?;
    let params: SignupParams = body::parse(&body)?;
    let (email, phone, password) = (
        text(params.email),
        text(params.phone),
        text(params.password),
    );
    // GoTrue's checks, in its order.
    if email.is_empty() && phone.is_empty() {
        return Err(AuthError::anonymous_provider_disabled());
    }
    if password.is_empty() {
        return Err(AuthError::password_required());
    }
    validation::password_strength(&password)?;
    if !email.is_empty() && !phone.is_empty() {
        return Err(AuthError::email_and_phone_on_signup());
    }
    if email.is_empty() {
        return Err(AuthError::phone_provider_disabled());
    }
    let email = validation::email(&email)?;

    let lookup = email.clone();
    let exists = state
        .db
        .call(move |connection| -> Result<_, AuthError> {
            Ok(users::find_by_email(connection, &lookup)?.is_some())
        })
        .await?;
    if exists {
        return Err(AuthError::user_already_exists());
    }
    let now = state.clock.now_micros();
    let user = account::new_account(
        email,
        password,
        state.settings.password_hash_cost,
        params.data.unwrap_or_default(),
        now,
    )
    .await?;
    let response = with_signer(&state, move |connection, signer| {
        sign_up::create_user_with_session(connection, signer, &user, now)
    })
    .await?;
    Ok(Json(response))
}
