//! `POST /auth/v1/signup`: email and password sign-up. The emulator confirms email addresses
//! automatically (GoTrue with `MAILER_AUTOCONFIRM`), so sign-up answers with a session.

use crate::auth::body::{self, text};
use crate::auth::error::AuthError;
use crate::auth::json::TokenResponse;
use crate::auth::rate_limit::Action;
use crate::auth::service::sign_up;
use crate::auth::store::users::{self, UserRecord};
use crate::auth::with_signer::with_signer;
use crate::auth::AuthState;
use crate::auth::{password, validation};
use crate::http::client_address::ClientAddress;
use crate::random;
use axum::body::Bytes;
use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Map, Value};

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
    let encrypted_password = password::hash(password, state.settings.password_hash_cost).await?;
    let id = random::uuid()?.to_string();
    let identity_id = random::uuid()?.to_string();
    let now = state.clock.now_micros();
    let mut user_metadata = params.data.unwrap_or_default();
    // The identity's claims join the metadata without overriding what the client sent, and the
    // confirmation marks the address verified (GoTrue `Signup` and `User.Confirm`).
    let identity_data = json!({
        "email": email,
        "email_verified": false,
        "phone_verified": false,
        "sub": id,
    });
    for (key, value) in identity_data.as_object().into_iter().flatten() {
        user_metadata
            .entry(key.clone())
            .or_insert_with(|| value.clone());
    }
    user_metadata.insert("email_verified".to_owned(), Value::Bool(true));
    let user = UserRecord {
        id,
        email,
        encrypted_password,
        email_confirmed_at: now,
        last_sign_in_at: None,
        app_metadata: json!({"provider": "email", "providers": ["email"]}),
        user_metadata: Value::Object(user_metadata),
        identity_id,
        identity_data,
        created_at: now,
        updated_at: now,
    };
    let response = with_signer(&state, move |connection, signer| {
        sign_up::create_user_with_session(connection, signer, &user, now)
    })
    .await?;
    Ok(Json(response))
}
